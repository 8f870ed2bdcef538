package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/conflict"
)

// chaosSet is one set of a run, of either kind.
type chaosSet struct {
	name     string
	extended bool
	recreate bool // an extended set with the Recreate strategy
	// templates are the templates the user applied, oldest first, for
	// rollbacks (the controller's own rollbacks are not among them).
	templates []template
}

// template is what the ops vary in a set's pod template.
type template struct {
	image    int
	behavior string // sim.ordinal.dev/behavior, "" for none
	cpu      int    // the container's cpu request in millicores, 0 for none
}

func (t template) String() string {
	s := image(t.image)
	if t.cpu != 0 {
		s += fmt.Sprintf(" cpu %dm", t.cpu)
	}
	if t.behavior == "" {
		return s
	}
	return s + " with behavior " + t.behavior
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

// randomExtended is randomSet as the extended kind (the same manifest
// under the extended apiVersion), with a random failure policy, progress
// deadline and self-healing, half of the rolling ones with the primary
// last (randomPriority), half of them updating pods in place where they
// can, and on a quarter of them Recreate.
func randomExtended(rng *rand.Rand, ns, name string) *v1alpha1.StatefulSet {
	data, err := json.Marshal(randomSet(rng, ns, name))
	if err != nil {
		panic(err)
	}
	set := &v1alpha1.StatefulSet{}
	if err := json.Unmarshal(data, set); err != nil {
		panic(err)
	}
	deadline := []int32{15, 30, 600}[rng.Intn(3)]
	set.Spec.ProgressDeadlineSeconds = &deadline
	randomHooks(rng, set)
	if rng.Intn(4) == 0 {
		set.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RecreateStatefulSetStrategyType}
		return set
	}
	healing := v1alpha1.SelfHealingEnabled
	if rng.Intn(4) == 0 {
		healing = v1alpha1.SelfHealingDisabled
	}
	// randomSet's maxUnavailable, if it chose one, stays.
	ru := &v1alpha1.RollingUpdateStatefulSetStrategy{}
	if set.Spec.UpdateStrategy.RollingUpdate != nil {
		ru.MaxUnavailable = set.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable
	}
	ru.SelfHealing = healing
	ru.OnFailure = []v1alpha1.FailurePolicy{v1alpha1.FailureReport, v1alpha1.FailurePause, v1alpha1.FailureRollback}[rng.Intn(3)]
	set.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RollingUpdateStatefulSetStrategyType, RollingUpdate: ru}
	randomPriority(rng, set.Spec.UpdateStrategy.RollingUpdate)
	if rng.Intn(2) == 0 {
		ru.PodUpdatePolicy = v1alpha1.PodUpdateInPlaceIfPossible
	}
	return set
}

func describeExtended(set *v1alpha1.StatefulSet) string {
	p := set.Spec.PersistentVolumeClaimRetentionPolicy
	strategy := string(set.Spec.UpdateStrategy.Type)
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		strategy = fmt.Sprintf("%s, selfHealing %s, onFailure %s", strategy, ru.SelfHealing, ru.OnFailure)
		if ru.MaxUnavailable != nil {
			strategy += ", maxUnavailable " + ru.MaxUnavailable.String()
		}
		if len(ru.Priority) > 0 {
			strategy += ", primary last"
		}
		if ru.PodUpdatePolicy != "" {
			strategy += ", " + string(ru.PodUpdatePolicy)
		}
	}
	return fmt.Sprintf("%s(extended, %s, replicas %d, minReady %d, %s, progressDeadline %ds, whenScaled %s, whenDeleted %s%s)", set.Name,
		set.Spec.PodManagementPolicy, *set.Spec.Replicas, set.Spec.MinReadySeconds, strategy, *set.Spec.ProgressDeadlineSeconds, p.WhenScaled, p.WhenDeleted,
		describeHooks(set.Spec.Lifecycle))
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
		set := randomExtended(r.rng, r.ns, cs.name)
		cs.recreate = set.Spec.UpdateStrategy.Type == v1alpha1.RecreateStatefulSetStrategyType
		created, err := r.ext.StatefulSets(r.ns).Create(ctx, set, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		r.watcher.UserWrite(created)
		r.logf("create %s", describeExtended(set))
	}
	r.sets = append(r.sets, cs)
	return nil
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

// setTemplate puts t into a pod template: the image, and the behavior
// annotation or none.
func setTemplate(pt *corev1.PodTemplateSpec, t template) {
	c := &pt.Spec.Containers[0]
	c.Image = image(t.image)
	delete(c.Resources.Requests, corev1.ResourceCPU)
	if t.cpu != 0 {
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		c.Resources.Requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(t.cpu), resource.DecimalSI)
	}
	if len(c.Resources.Requests) == 0 {
		c.Resources.Requests = nil
	}
	c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == behaviorEnv })
	if t.behavior == "" {
		delete(pt.Annotations, behaviorKey)
		return
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: behaviorEnv, Value: t.behavior})
	if pt.Annotations == nil {
		pt.Annotations = map[string]string{}
	}
	pt.Annotations[behaviorKey] = t.behavior
}

// behaviorEnv repeats the behavior in the container's environment, as a
// bad release changes the container and not only an annotation: a change
// of behavior then cannot be made in place, and a set updating in place
// recreates its pods for it, while an image change alone is made in place.
const behaviorEnv = "CHAOS_BEHAVIOR"

// templateOf reads t back from a pod template.
func templateOf(pt *corev1.PodTemplateSpec) template {
	t := template{behavior: pt.Annotations[behaviorKey]}
	if q, ok := pt.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]; ok {
		t.cpu = int(q.MilliValue())
	}
	_, _ = fmt.Sscanf(pt.Spec.Containers[0].Image, "registry.k8s.io/nginx-slim:0.%d", &t.image)
	return t
}

// track adds an apps/v1 set a test created itself to the run's sets.
func (r *run) track(set *appsv1.StatefulSet) {
	r.sets = append(r.sets, &chaosSet{name: set.Name, templates: []template{templateOf(&set.Spec.Template)}})
}
