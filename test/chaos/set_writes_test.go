package chaos

import (
	"context"
	"math/rand"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/conflict"
)

// chaosSet is one set of a run, of either kind.
type chaosSet struct {
	name     string
	extended bool
	recreate bool // an extended set with the Recreate strategy
	// templates are the templates the user applied, oldest first, for
	// rollbacks (the controller never changes a template).
	templates []template
	// paused is set while the pause op holds an apps/v1 set with a
	// partition above every ordinal, and unpause is the partition it had
	// before, which resume restores: the run must resume what it paused.
	paused  bool
	unpause *int32
}

// specFields are the parts of a set's spec the ops change, the same for both
// kinds: partition is nil for Recreate, paused nil for apps/v1 and
// Recreate.
type specFields struct {
	replicas  **int32
	template  *corev1.PodTemplateSpec
	partition **int32
	paused    *bool
}

// createSet creates set number i of the run: the first of a random kind,
// the second of the other, so two-set runs have one of each.
func (r *run) createSet(ctx context.Context, i int) error {
	extended := r.rng.Intn(2) == 0
	if i > 0 {
		extended = !r.sets[0].extended
	}
	cs := &chaosSet{name: setNames[i], extended: extended, templates: []template{{image: 8, cpu: 100}}}
	if !extended {
		set := randomSet(r.rng, r.ns, cs.name)
		created, err := r.client.AppsV1().StatefulSets(r.ns).Create(ctx, set, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		r.watcher.UserWrite(created)
		r.logf("create %s", describe(set))
	} else {
		set := randomExtended(r.rng, r.ns, cs.name, r.all)
		randomTopology(r.rng, set, r.all)
		randomBudget(rand.New(rand.NewSource(r.seed*7927+int64(i))), set, r.all)
		if r.shapes.rng.Intn(2) == 0 || r.all {
			set.Spec.VolumeClaimTemplates[0].Spec.StorageClassName = ptr.To(localClass)
		}
		r.allFeatures(set)
		cs.recreate = set.Spec.UpdateStrategy.Type == v1alpha1.RecreateStatefulSetStrategyType
		if err := r.configure(ctx, set); err != nil {
			return err
		}
		created, err := r.ext.StatefulSets(r.ns).Create(ctx, set, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		r.watcher.UserWrite(created)
		r.logf("create %s%s", describeExtended(set), localWords(set))
	}
	r.sets = append(r.sets, cs)
	return nil
}

// localWords says that set's claims are on local volumes.
func localWords(set *v1alpha1.StatefulSet) string {
	if c := set.Spec.VolumeClaimTemplates[0].Spec.StorageClassName; c != nil && *c == localClass {
		return " on local volumes"
	}
	return ""
}

// mutate applies fn to the live set's fields, retrying on conflicts, and
// tells the invariant checker the write was the user's.
func (r *run) mutate(ctx context.Context, cs *chaosSet, fn func(specFields)) error {
	if !cs.extended {
		return r.mutateApps(ctx, cs.name, func(s *appsv1.StatefulSet) {
			f := specFields{replicas: &s.Spec.Replicas, template: &s.Spec.Template}
			if s.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType {
				if s.Spec.UpdateStrategy.RollingUpdate == nil {
					s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
				}
				f.partition = &s.Spec.UpdateStrategy.RollingUpdate.Partition
			}
			fn(f)
		})
	}
	return r.mutateExtended(ctx, cs, func(s *v1alpha1.StatefulSet) {
		f := specFields{replicas: &s.Spec.Replicas, template: &s.Spec.Template}
		if s.Spec.UpdateStrategy.Type != v1alpha1.RecreateStatefulSetStrategyType {
			if s.Spec.UpdateStrategy.RollingUpdate == nil {
				s.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{}
			}
			ru := s.Spec.UpdateStrategy.RollingUpdate
			f.partition, f.paused = &ru.Partition, &ru.Paused
		}
		fn(f)
	})
}

// mutateExtended applies fn to the live extended set, retrying on
// conflicts, and tells the invariant checker the write was the user's.
func (r *run) mutateExtended(ctx context.Context, cs *chaosSet, fn func(*v1alpha1.StatefulSet)) error {
	sets := r.ext.StatefulSets(r.ns)
	return conflict.Retry(func() error {
		s, err := sets.Get(ctx, cs.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		fn(s)
		updated, err := sets.Update(ctx, s, metav1.UpdateOptions{})
		if err == nil {
			r.watcher.UserWrite(updated)
		}
		return err
	})
}

// mutateApps applies fn to the live apps/v1 set name, retrying on
// conflicts.
func (r *run) mutateApps(ctx context.Context, name string, fn func(*appsv1.StatefulSet)) error {
	return conflict.Retry(func() error {
		set, err := r.client.AppsV1().StatefulSets(r.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		fn(set)
		updated, err := r.client.AppsV1().StatefulSets(r.ns).Update(ctx, set, metav1.UpdateOptions{})
		if err == nil {
			r.watcher.UserWrite(updated)
		}
		return err
	})
}

// track adds an apps/v1 set a test created itself to the run's sets.
func (r *run) track(set *appsv1.StatefulSet) {
	r.sets = append(r.sets, &chaosSet{name: set.Name, templates: []template{templateOf(&set.Spec.Template)}})
}
