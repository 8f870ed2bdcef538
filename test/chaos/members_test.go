package chaos

import (
	"context"
	"math/rand"
	"slices"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// memberHooks gives a third of the hooked sets a postCreate hook and a
// third a postUpdate hook, drawn as the other hooks are.
func memberHooks(rng *rand.Rand, l *v1alpha1.Lifecycle, one func() *v1alpha1.LifecycleHook, all bool) {
	if rng.Intn(3) == 0 || all {
		l.PostCreate = one()
	}
	if rng.Intn(3) == 0 || all {
		l.PostUpdate = one()
	}
}

// offline changes an extended set's offline members as an operator
// stopping a member for a while would: one time in three it brings them
// all back; otherwise it takes one ordinal below 4 offline.
func (r *run) offline(ctx context.Context) bool {
	cs := r.pickExtended()
	if cs == nil {
		return false
	}
	var list []intstr.IntOrString
	if r.rng.Intn(3) != 0 {
		list = []intstr.IntOrString{intstr.FromInt32(int32(r.rng.Intn(4)))}
	}
	return r.mutateExtended(ctx, cs, func(s *v1alpha1.StatefulSet) {
		s.Spec.OfflineOrdinals = list
		r.logf("offline ordinals %v of %s", list, cs.name)
	}) == nil
}

// withoutOffline is ords without the offline ones: an offline member has
// no pod, and its claims need not be bound.
func withoutOffline(ords []int32, offline []v1alpha1.OrdinalRange) []int32 {
	return slices.DeleteFunc(ords, func(ord int32) bool {
		return slices.ContainsFunc(offline, func(r v1alpha1.OrdinalRange) bool { return r.Low <= ord && ord <= r.High })
	})
}
