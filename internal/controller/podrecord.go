package controller

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// podRecord is what the pod informer caches for each pod: the fields
// planner.TrimPod keeps, without the rest of corev1.Pod's struct (about
// 350 bytes instead of 1 200 per pod before labels and strings; with
// thousands of pods the pods are most of the controller's memory). A sync
// turns the records of one set back into pods with pod(); the planner never
// sees a difference (TestPodRecordRoundTripsTrimPod).
type podRecord struct {
	metav1.ObjectMeta                   // as planner.TrimPod keeps it
	hostname, subdomain string          // identity
	claimVolumes        []corev1.Volume // the volumes that mount claims
	phase               corev1.PodPhase
	hasReady            bool // the pod has a Ready condition, of this status and time:
	readyStatus         corev1.ConditionStatus
	readySince          metav1.Time
}

// newPodRecord records what planner.TrimPod keeps of p.
func newPodRecord(p *corev1.Pod) *podRecord {
	t := planner.TrimPod(p)
	r := &podRecord{ObjectMeta: t.ObjectMeta, hostname: t.Spec.Hostname, subdomain: t.Spec.Subdomain,
		claimVolumes: t.Spec.Volumes, phase: t.Status.Phase}
	if len(t.Status.Conditions) > 0 {
		r.hasReady, r.readyStatus, r.readySince = true, t.Status.Conditions[0].Status, t.Status.Conditions[0].LastTransitionTime
	}
	return r
}

// pod returns a new pod equal to planner.TrimPod of the recorded pod. It
// shares labels, owner references and volumes with the record: callers
// never modify them (the planner copies what it changes).
func (r *podRecord) pod() *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: r.ObjectMeta}
	p.Spec.Hostname, p.Spec.Subdomain, p.Spec.Volumes = r.hostname, r.subdomain, r.claimVolumes
	p.Status.Phase = r.phase
	if r.hasReady {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: r.readyStatus, LastTransitionTime: r.readySince}}
	}
	return p
}

// GetObjectKind implements runtime.Object; cached objects carry no kind.
func (r *podRecord) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object.
func (r *podRecord) DeepCopyObject() runtime.Object {
	out := *r
	r.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.claimVolumes = make([]corev1.Volume, len(r.claimVolumes))
	for i := range r.claimVolumes {
		r.claimVolumes[i].DeepCopyInto(&out.claimVolumes[i])
	}
	if r.claimVolumes == nil {
		out.claimVolumes = nil
	}
	return &out
}

var (
	_ runtime.Object = (*podRecord)(nil)
	_ metav1.Object  = (*podRecord)(nil)
)

// podByName returns the cached pod namespace/name.
func podByName(idx cache.Indexer, namespace, name string) (*podRecord, bool) {
	obj, ok, err := idx.GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil, false
	}
	r, ok := obj.(*podRecord)
	return r, ok
}

func podsOf(records []*podRecord) []*corev1.Pod {
	out := make([]*corev1.Pod, len(records))
	for i, r := range records {
		out[i] = r.pod()
	}
	return out
}
