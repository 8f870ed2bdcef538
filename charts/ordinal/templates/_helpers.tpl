{{/*
Names. With the release name "ordinal" they are config/'s: the ServiceAccount
and Deployment ordinal-controller, the ClusterRole and Lease
ordinal-statefulset-controller, the Roles ordinal-leader-election and
ordinal-hook-token, the ClusterRoles ordinal-metrics-auth and
ordinal-metrics-reader.
*/}}
{{- define "ordinal.name" -}}
{{- printf "%s-controller" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ordinal.controllerRole" -}}
{{- printf "%s-statefulset-controller" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ordinal.leaderRole" -}}
{{- printf "%s-leader-election" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ordinal.metricsAuthRole" -}}
{{- printf "%s-metrics-auth" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ordinal.metricsReaderRole" -}}
{{- printf "%s-metrics-reader" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ordinal.hookTokenRole" -}}
{{- printf "%s-hook-token" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ordinal.leaseName" -}}
{{- .Values.leaderElection.leaseName | default (include "ordinal.controllerRole" .) -}}
{{- end -}}

{{- define "ordinal.selectorLabels" -}}
app.kubernetes.io/name: ordinal-controller
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ordinal.labels" -}}
{{ include "ordinal.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "ordinal.image" -}}
{{- $ref := printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- if .Values.image.digest -}}
{{- $ref = printf "%s@%s" $ref .Values.image.digest -}}
{{- end -}}
{{- $ref -}}
{{- end -}}

{{/*
The calls the controller makes, and no more: the rules of config/rbac.yaml's
ClusterRole but its StorageClass rule (a test compares them). Every
resource here is namespaced, so a controller that watches one namespace
needs them only there. With manageAppsV1 false the controller neither
reads nor writes apps/v1 StatefulSets, and gets no rule on them (as with
config/extended-only).
*/}}
{{- define "ordinal.controllerRules" -}}
{{- if .Values.manageAppsV1 -}}
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["apps"]
  resources: ["statefulsets/status"]
  verbs: ["update"]
# Owner references with blockOwnerDeletion need update on the owner's
# finalizers subresource when OwnerReferencesPermissionEnforcement is on.
- apiGroups: ["apps"]
  resources: ["statefulsets/finalizers"]
  verbs: ["update"]
{{ end -}}
# The extended StatefulSet (apps.ordinal.dev/v1alpha1): the controller
# writes its spec (a rollback restores the template, a failure pauses it)
# and its status; it never uses the scale subresource.
- apiGroups: ["apps.ordinal.dev"]
  resources: ["statefulsets"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["apps.ordinal.dev"]
  resources: ["statefulsets/status"]
  verbs: ["update", "patch"]
- apiGroups: ["apps.ordinal.dev"]
  resources: ["statefulsets/finalizers"]
  verbs: ["update"]
- apiGroups: ["apps"]
  resources: ["controllerrevisions"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "create", "delete", "patch"]
- apiGroups: [""]
  resources: ["pods/finalizers"]
  verbs: ["update"]
# An update in place: the readiness gate's condition through the status,
# new resources through the resize subresource.
- apiGroups: [""]
  resources: ["pods/status", "pods/resize"]
  verbs: ["patch"]
# Extended sets that respect PodDisruptionBudgets remove the pods they
# disrupt through the eviction subresource.
- apiGroups: [""]
  resources: ["pods/eviction"]
  verbs: ["create"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  # delete: only under an extended set's nodeFailurePolicy.volumes: Recreate
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: ["", "events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
# Service lifecycle hooks: the Service's port and its ready endpoints.
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get"]
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["list"]
{{- end -}}
