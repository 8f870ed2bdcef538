package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

type extOpt func(*v1alpha1.StatefulSet)

// mkExt is the extended set web (uid set-uid) at generation 1, observed,
// RollingUpdate with self-healing, at revision web-r1 and image 0.8.
func mkExt(replicas int32, opts ...extOpt) *v1alpha1.StatefulSet {
	s := &v1alpha1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, UID: "set-uid", Generation: 1},
		Spec: v1alpha1.StatefulSetSpec{
			Replicas: &replicas,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:0.8"}}}},
			UpdateStrategy: v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &v1alpha1.RollingUpdateStatefulSetStrategy{SelfHealing: v1alpha1.SelfHealingEnabled}},
		},
		Status: v1alpha1.StatefulSetStatus{ObservedGeneration: 1, CurrentRevision: "web-r1", UpdateRevision: "web-r1"},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// gen sets the generation, observed unless a later option says otherwise.
func gen(g int64) extOpt {
	return func(s *v1alpha1.StatefulSet) { s.Generation, s.Status.ObservedGeneration = g, g }
}

// unobserved leaves the generation ahead of status.observedGeneration.
func unobserved(s *v1alpha1.StatefulSet) { s.Status.ObservedGeneration = s.Generation - 1 }

func extRevisions(current, update string) extOpt {
	return func(s *v1alpha1.StatefulSet) { s.Status.CurrentRevision, s.Status.UpdateRevision = current, update }
}

func extPaused(s *v1alpha1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Paused = true }

func extParallel(s *v1alpha1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement }

func extNoHealing(s *v1alpha1.StatefulSet) {
	s.Spec.UpdateStrategy.RollingUpdate.SelfHealing = v1alpha1.SelfHealingDisabled
}

func extMaxUnavailable(n int32) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		v := intstr.FromInt32(n)
		s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &v
	}
}

func extMinReady(sec int32) extOpt {
	return func(s *v1alpha1.StatefulSet) { s.Spec.MinReadySeconds = sec }
}

func extRecreate(s *v1alpha1.StatefulSet) {
	s.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RecreateStatefulSetStrategyType}
}

func extImage(v string) extOpt {
	return func(s *v1alpha1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:" + v }
}

// rolledBack records the automatic rollback from -> to made at second sec.
func rolledBack(from, to string, sec int) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		s.Status.Rollback = &v1alpha1.RollbackRecord{From: from, To: to, Time: metav1.NewTime(t0.Add(secs(sec)))}
	}
}

// threeReadyExt is threeReady for an extended set.
func threeReadyExt(opts ...extOpt) *history {
	h := &history{}
	h.add(0, added, mkExt(3, opts...))
	h.add(0.1, added, mkPod(0, "a")).add(0.5, modified, mkPod(0, "a", ready))
	h.add(1.1, added, mkPod(1, "a")).add(1.5, modified, mkPod(1, "a", ready))
	h.add(2.1, added, mkPod(2, "a")).add(2.5, modified, mkPod(2, "a", ready))
	return h
}

func readySince(sec int) podOpt {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(secs(sec)))}}
	}
}

func notReady(p *corev1.Pod) {
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
}

func secs(n int) time.Duration { return time.Duration(n) * time.Second }
