#!/usr/bin/env bash
# Generates the extended StatefulSet's deepcopy functions and its
# CustomResourceDefinition from the types in api/v1alpha1, with
# controller-gen pinned in hack/tools/go.mod (its own module: the
# generator's dependencies would otherwise move the project's Kubernetes
# pins).
#
#   hack/generate.sh          writes api/v1alpha1/zz_generated.deepcopy.go,
#                             config/crd/apps.ordinal.dev_statefulsets.yaml
#                             and its copy in the Helm chart,
#                             charts/ordinal/crds/apps.ordinal.dev_statefulsets.yaml
#   hack/generate.sh DIR      writes the same paths under DIR instead
#                             (hack/verify-generated.sh compares them)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${1:-$root}
out=$(cd "$out" && pwd)
mkdir -p "$out/api/v1alpha1" "$out/config/crd" "$out/charts/ordinal/crds"

controller_gen=$(go -C hack/tools tool -n controller-gen)
"$controller_gen" object paths=./api/... output:object:dir="$out/api/v1alpha1"
# generateEmbeddedObjectMeta keeps the pod template's labels and
# annotations: without it the API server prunes them.
"$controller_gen" crd:generateEmbeddedObjectMeta=true paths=./api/... output:crd:dir="$out/config/crd"

# Finishing touches that markers cannot put on types of other packages:
#  - the embedded core types lose their descriptions (the pod template alone
#    has about 260 KB of them, which would put the CRD over the 256 KiB a
#    client-side `kubectl apply` can record); the kind's own fields keep
#    theirs;
#  - the selector gets the bounds its rules against the template's labels
#    need to stay within the API server's CEL cost budget: label values of
#    at most 63 characters (as for any label), at most 256 matchLabels and
#    64 matchExpressions of at most 256 values each;
#  - reserveOrdinals and offlineOrdinals entries (int-or-string, which no marker can bound) get
#    the 21 characters of the longest range, "2147483647-2147483647", so
#    that the rule checking them is cheap enough;
#  - the selectors of rollingUpdate.priority lose their descriptions (the
#    rule's own says what they do) and get bounds for their rules' cost:
#    label values of at most 63 characters, at most 64 matchLabels and 16
#    matchExpressions of at most 64 values each;
#  - a claim template's name becomes a pod volume's name, a DNS label of
#    at most 63 characters, which also keeps the rule that template names
#    are unique cheap enough;
#  - overrides' ordinals get the bound of reserveOrdinals, their labels the
#    63 characters of any label value, for their rules' cost; the core
#    types an override embeds (affinity, tolerations, spread constraints,
#    env, resources) lose their descriptions, as the template's do.
go -C hack/tools run ./crdpatch \
	-trim spec.selector -trim spec.template -trim spec.volumeClaimTemplates -trim status.conditions \
	-bound 'spec.selector.matchLabels{}:maxLength=63' \
	-bound 'spec.selector.matchLabels:maxProperties=256' \
	-bound 'spec.selector.matchExpressions:maxItems=64' \
	-bound 'spec.selector.matchExpressions[].values:maxItems=256' \
	-bound 'spec.reserveOrdinals[]:maxLength=21' \
	-bound 'spec.offlineOrdinals[]:maxLength=21' \
	-trim 'spec.updateStrategy.rollingUpdate.priority[].selector' \
	-bound 'spec.updateStrategy.rollingUpdate.priority[].selector.matchLabels{}:maxLength=63' \
	-bound 'spec.updateStrategy.rollingUpdate.priority[].selector.matchLabels:maxProperties=64' \
	-bound 'spec.updateStrategy.rollingUpdate.priority[].selector.matchExpressions:maxItems=16' \
	-bound 'spec.updateStrategy.rollingUpdate.priority[].selector.matchExpressions[].values:maxItems=64' \
	-bound 'spec.volumeClaimTemplates[].metadata.name:maxLength=63' \
	-bound 'spec.overrides[].ordinals[]:maxLength=21' \
	-bound 'spec.overrides[].template.metadata.labels{}:maxLength=63' \
	-trim 'spec.overrides[].template.spec.affinity' \
	-trim 'spec.overrides[].template.spec.tolerations' \
	-trim 'spec.overrides[].template.spec.topologySpreadConstraints' \
	-trim 'spec.overrides[].template.spec.containers[].env' \
	-trim 'spec.overrides[].template.spec.containers[].resources' \
	"$out/config/crd/apps.ordinal.dev_statefulsets.yaml"

# Helm installs CRDs only from a chart's own crds/ directory, never from
# outside the chart, so the chart carries a copy of the same bytes.
cp "$out/config/crd/apps.ordinal.dev_statefulsets.yaml" "$out/charts/ordinal/crds/apps.ordinal.dev_statefulsets.yaml"
