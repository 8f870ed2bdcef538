package shape

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/migrate"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// Set is a set of either kind, ready to create: one of Apps and
// Extended is set.
type Set struct {
	Apps     *appsv1.StatefulSet
	Extended *v1alpha1.StatefulSet
}

// Kind is the set's kind.
func (s Set) Kind() setops.Kind {
	if s.Extended != nil {
		return setops.ExtendedKind
	}
	return setops.AppsV1
}

// meta is the set's metadata, to change in place.
func (s Set) meta() *metav1.ObjectMeta {
	if s.Extended != nil {
		return &s.Extended.ObjectMeta
	}
	return &s.Apps.ObjectMeta
}

// Name is the set's name.
func (s Set) Name() string { return s.meta().Name }

// DeepCopy is an independent copy.
func (s Set) DeepCopy() Set {
	if s.Extended != nil {
		return Set{Extended: s.Extended.DeepCopy()}
	}
	return Set{Apps: s.Apps.DeepCopy()}
}

// lastApplied is kubectl apply's record of a manifest, which would not
// describe the copy.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Source is the set as read, cleaned for creating in a copy: its name,
// labels, annotations and spec, nothing the source cluster set.
func (s *Shape) Source() Set {
	meta := func(m metav1.ObjectMeta) metav1.ObjectMeta {
		out := metav1.ObjectMeta{Name: m.Name, Labels: m.Labels}
		for k, v := range m.Annotations {
			if k != lastApplied {
				if out.Annotations == nil {
					out.Annotations = map[string]string{}
				}
				out.Annotations[k] = v
			}
		}
		return out
	}
	if s.Extended != nil {
		return Set{Extended: &v1alpha1.StatefulSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.Kind.Kind},
			ObjectMeta: meta(s.Extended.ObjectMeta), Spec: *s.Extended.Spec.DeepCopy(),
		}}
	}
	return Set{Apps: &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: meta(s.Set.ObjectMeta), Spec: *s.Set.Spec.DeepCopy(),
	}}
}

// Extras are what a rehearsal gives the extended kind an apps/v1 set is
// converted to, to show what the kind would do: its failure policy and
// progress deadline.
type Extras struct {
	OnFailure        v1alpha1.FailurePolicy
	ProgressDeadline time.Duration
}

// As is the set as kind: itself, or converted as `ordinal migrate` would
// convert it, an apps/v1 set given extras, an extended set losing the
// settings apps/v1 has no place for (named in the notes).
func (s Set) As(kind setops.Kind, extras Extras) (Set, []string, error) {
	switch {
	case kind == s.Kind():
		return s.DeepCopy(), nil, nil
	case kind == setops.ExtendedKind:
		ext, err := migrate.ToExtended(s.Apps)
		if err != nil {
			return Set{}, nil, fmt.Errorf("converting %s to the extended kind: %w", s.Name(), err)
		}
		extras.apply(ext)
		return Set{Extended: ext}, nil, nil
	}
	apps, dropped := migrate.ToAppsV1(s.Extended)
	notes := make([]string, len(dropped))
	for i, d := range dropped {
		notes[i] = "apps/v1 drops " + d
	}
	return Set{Apps: apps}, notes, nil
}

func (x Extras) apply(set *v1alpha1.StatefulSet) {
	if x.ProgressDeadline > 0 {
		set.Spec.ProgressDeadlineSeconds = ptr.To(int32(x.ProgressDeadline / time.Second))
	}
	if ru := set.Spec.UpdateStrategy.RollingUpdate; x.OnFailure != "" && set.Spec.UpdateStrategy.Type != v1alpha1.OnDeleteStatefulSetStrategyType {
		if ru == nil {
			ru = &v1alpha1.RollingUpdateStatefulSetStrategy{}
			set.Spec.UpdateStrategy.RollingUpdate = ru
		}
		ru.OnFailure = x.OnFailure
	}
}
