package migrate

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
)

// lastApplied is kubectl apply's record of the manifest it last applied;
// it describes the other kind's manifest, so it is not carried over.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// carriedMeta is the metadata a migrated set keeps: name, namespace,
// labels and annotations. Server-set fields, owner references and
// finalizers stay with the old object.
func carriedMeta(m metav1.ObjectMeta) metav1.ObjectMeta {
	out := metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, Labels: m.Labels}
	for k, v := range m.Annotations {
		if k == lastApplied {
			continue
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[k] = v
	}
	return out
}

// toExtended is the extended set with an apps/v1 set's metadata and spec:
// the extended spec is a superset with the same JSON field names, so the
// spec goes across as JSON; the extended-only fields take their defaults.
func toExtended(set *appsv1.StatefulSet) (*v1alpha1.StatefulSet, error) {
	data, err := json.Marshal(set.Spec)
	if err != nil {
		return nil, fmt.Errorf("encoding the spec of %s: %w", set.Name, err)
	}
	out := &v1alpha1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.Kind.Kind},
		ObjectMeta: carriedMeta(set.ObjectMeta),
	}
	if err := json.Unmarshal(data, &out.Spec); err != nil {
		return nil, fmt.Errorf("decoding the spec of %s as the extended kind: %w", set.Name, err)
	}
	return out, nil
}

// toAppsV1 is the apps/v1 set with an extended set's metadata and spec, as
// the planner already sees it (osts.View). A Recreate strategy, which
// apps/v1 does not have, becomes RollingUpdate; the caller has checked
// (or was told to ignore) the extended-only settings.
func toAppsV1(set *v1alpha1.StatefulSet) *appsv1.StatefulSet {
	view := osts.View(set)
	out := &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: carriedMeta(set.ObjectMeta),
		Spec:       view.Spec,
	}
	if out.Spec.UpdateStrategy.Type == appsv1.StatefulSetUpdateStrategyType(v1alpha1.RecreateStatefulSetStrategyType) {
		out.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{
			Type:          appsv1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](0)},
		}
	}
	return out
}

// ToExtended is the extended set `ordinal migrate` would create for an
// apps/v1 set: its metadata (name, namespace, labels, annotations) and
// spec, the extended-only settings at their defaults. The input is not
// changed.
func ToExtended(set *appsv1.StatefulSet) (*v1alpha1.StatefulSet, error) {
	return toExtended(set)
}

// ToAppsV1 is the apps/v1 set `ordinal migrate --to apps/v1 --force`
// would create for an extended set, and the extended-only settings that
// set has and apps/v1 drops, each a sentence naming the field and what
// apps/v1 does instead (none when nothing is dropped). The input is not
// changed.
func ToAppsV1(set *v1alpha1.StatefulSet) (*appsv1.StatefulSet, []string) {
	return toAppsV1(set), extendedOnly(set)
}
