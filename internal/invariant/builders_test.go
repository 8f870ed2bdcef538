package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
)

// t0 is the start of every synthetic history.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const ns = "ns"

// history builds a synthetic event stream with increasing RVs.
type history struct {
	rv     uint64
	events []Event
	users  []metav1.Object // what UserWrite is told
	// externals are what ExternalDelete is told.
	externals []types.UID
	// opts are the checker's options.
	opts Options
}

// external records that the object with uid is deleted by someone else.
func (h *history) external(uid types.UID) { h.externals = append(h.externals, uid) }

func (h *history) add(sec float64, typ watch.EventType, obj runtime.Object) *history {
	h.rv++
	kind := map[string]Kind{"*v1.Pod": KindPod, "*v1.StatefulSet": KindSet, "*v1.PersistentVolumeClaim": KindClaim,
		"*v1.ControllerRevision": KindRevision, "*v1alpha1.StatefulSet": KindExtendedSet,
		"*v1.Node": KindNode, "*v1.PersistentVolume": KindVolume,
		"*v1.PodDisruptionBudget": KindBudget, "*v1.ConfigMap": KindConfigMap,
		"*v1alpha1.Eviction": KindEviction}[sprintf("%T", obj)]
	h.events = append(h.events, Event{Kind: kind, Type: typ, Object: obj, RV: h.rv, Time: t0.Add(time.Duration(sec * float64(time.Second)))})
	return h
}

// user adds obj as a write of the user's, which UserWrite learns of.
func (h *history) user(sec float64, typ watch.EventType, obj runtime.Object) *history {
	h.add(sec, typ, obj)
	m := obj.(metav1.Object)
	m.SetResourceVersion(itoa(int32(h.rv)))
	h.users = append(h.users, m)
	return h
}

func (h *history) check(external ...types.UID) []Violation {
	return h.checker(external...).Violations()
}

func (h *history) checker(external ...types.UID) *Checker {
	c := New(h.opts)
	for _, u := range h.users {
		c.UserWrite(u)
	}
	for _, uid := range append(external, h.externals...) {
		c.ExternalDelete(uid)
	}
	for _, ev := range h.events {
		c.Observe(ev)
	}
	return c
}

type setOpt func(*appsv1.StatefulSet)

func mkSet(replicas int32, opts ...setOpt) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, UID: "set-uid", Generation: 1},
		Spec: appsv1.StatefulSetSpec{
			Replicas:             &replicas,
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}},
		},
		Status: appsv1.StatefulSetStatus{CurrentRevision: "web-r1", UpdateRevision: "web-r1"},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func parallel(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement }

func onDelete(s *appsv1.StatefulSet) {
	s.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType
}

func partition(p int32) setOpt {
	return func(s *appsv1.StatefulSet) {
		s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: &p}
	}
}

func startAt(start int32) setOpt {
	return func(s *appsv1.StatefulSet) { s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: start} }
}

func maxUnavailable(n int) setOpt {
	return func(s *appsv1.StatefulSet) {
		v := intstr.FromInt32(int32(n))
		s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &v}
	}
}

func revisions(current, update string) setOpt {
	return func(s *appsv1.StatefulSet) { s.Status.CurrentRevision, s.Status.UpdateRevision = current, update }
}

func whenScaledDelete(s *appsv1.StatefulSet) {
	s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenScaled: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}
}

func status(collisions int32, observed int64) setOpt {
	return func(s *appsv1.StatefulSet) {
		s.Status.CollisionCount, s.Status.ObservedGeneration = &collisions, observed
	}
}

type podOpt func(*corev1.Pod)

// mkPod is web-<ord> with uid web-<ord>-<gen>, Pending at revision web-r1.
func mkPod(ord int32, gen string, opts ...podOpt) *corev1.Pod {
	ctrl := true
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: podName("web", ord), Namespace: ns, UID: types.UID(podName("web", ord) + "-" + gen),
			Labels:          map[string]string{RevisionLabel: "web-r1"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "web", UID: "set-uid", Controller: &ctrl}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func ready(p *corev1.Pod) {
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)}}
}

func failed(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }

func terminating(p *corev1.Pod) {
	now := metav1.NewTime(t0)
	p.DeletionTimestamp = &now
}

func rev(name string) podOpt {
	return func(p *corev1.Pod) { p.Labels[RevisionLabel] = name }
}

type claimOpt func(*corev1.PersistentVolumeClaim)

func mkClaim(ord int32, opts ...claimOpt) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name: "data-" + podName("web", ord), Namespace: ns, UID: types.UID("claim-" + itoa(ord)),
	}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-" + itoa(ord)}}
	for _, o := range opts {
		o(c)
	}
	return c
}

func ownedByPod(ord int32) claimOpt {
	return func(c *corev1.PersistentVolumeClaim) {
		c.OwnerReferences = append(c.OwnerReferences, metav1.OwnerReference{Kind: "Pod", Name: podName("web", ord), UID: types.UID(podName("web", ord) + "-a")})
	}
}

func claimDeleting(c *corev1.PersistentVolumeClaim) {
	now := metav1.NewTime(t0)
	c.DeletionTimestamp = &now
}

func mkRev(name string) *appsv1.ControllerRevision {
	ctrl := true
	return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: ns, UID: types.UID(name),
		OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "web", UID: "set-uid", Controller: &ctrl}},
	}}
}

const (
	added    = watch.Added
	modified = watch.Modified
	deleted  = watch.Deleted
)

type (
	appsv1StatefulSet = appsv1.StatefulSet
	corev1PVC         = corev1.PersistentVolumeClaim
)

// rules is the rule of each violation check finds, in order.
func (h *history) rules(external ...types.UID) []Rule {
	var out []Rule
	for _, v := range h.check(external...) {
		out = append(out, v.Rule)
	}
	return out
}

func capacity(size string) claimOpt {
	return func(c *corev1.PersistentVolumeClaim) {
		c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}
	}
}
