{{/*
Names. With the release name "ordinal" they are config/'s: the ServiceAccount
and Deployment ordinal-controller, the ClusterRole and Lease
ordinal-statefulset-controller, the Roles ordinal-leader-election and
ordinal-hook-token, the ClusterRoles ordinal-metrics-auth,
ordinal-metrics-reader, ordinal-claim-deleter and ordinal-config-secrets.
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

{{- define "ordinal.claimDeleterRole" -}}
{{- printf "%s-claim-deleter" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ordinal.configSecretsRole" -}}
{{- printf "%s-config-secrets" .Release.Name | trunc 63 | trimSuffix "-" -}}
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
# reads it and writes its status only (the failure policy's decisions live
# in status.hold, never in the spec); it never uses the scale subresource.
- apiGroups: ["apps.ordinal.dev"]
  resources: ["statefulsets"]
  verbs: ["get", "list", "watch"]
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
# PodDisruptionBudgets: the budgets that select an extended set's pods
# (a second one makes every eviction fail), the budget changes that let a
# refused eviction go at once, and the budget a set with
# spec.disruptionBudget keeps of its own, owned by it.
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
# The eviction responder of the extended kind's pods, where the API
# server serves the EvictionRequest API (lifecycle.k8s.io/v1alpha1, alpha
# in 1.37): the controller follows Evictions and writes its own progress,
# heartbeats and completion to their status. It creates no Eviction and
# no EvictionRequest. Unused, and harmless, where the API is not served.
- apiGroups: ["lifecycle.k8s.io"]
  resources: ["evictions"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["lifecycle.k8s.io"]
  resources: ["evictions/status"]
  verbs: ["update"]
# No delete: the controller deletes a claim only under an extended set's
# nodeFailurePolicy.volumes: Recreate, and only in a namespace of
# claimDeletion.namespaces (claim-deletion.yaml).
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "create", "patch"]
# ConfigMaps whose data an extended set's revisions hold
# (spec.configRevisions): their changes wake the set, and the controller
# makes immutable copies of them, owned by the revisions that read them.
# Secrets are not here: a namespace opts in (docs/config-revisions.md).
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "patch"]
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
