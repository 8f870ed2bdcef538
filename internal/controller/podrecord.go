package controller

import (
	"maps"
	"unique"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// podRecord is what the pod informer caches for each pod: the fields
// planner.TrimPod keeps, without the rest of corev1.Pod's struct and with
// its metadata compacted (compactMeta): 687 bytes for a set's pod with the
// cache's own key and indexes, against 1279 when the record held a whole
// metav1.ObjectMeta (TestAPodRecordInTheCacheTakesUnder700Bytes). With
// thousands of pods the pods are most of the controller's memory. A sync
// turns the records of one set back into pods with pod(); the planner
// never sees a difference (TestPodRecordRoundTripsTrimPod).
type podRecord struct {
	compactMeta
	hostname     string // the name's string when equal to it
	subdomain    unique.Handle[string]
	nodeName     unique.Handle[string] // few nodes, many pods: interned
	claimVolumes []corev1.Volume       // the volumes that mount claims
	phase        unique.Handle[string]
	// podIP is the pod's address, which only the role probe reads
	// (podcalls.go, internal/podcall); pod() leaves it out, as TrimPod does.
	podIP       string
	hasReady    bool // the pod has a Ready condition, of this status and time:
	readyStatus unique.Handle[string]
	readySince  metav1.Time
	// trouble holds what planner.TrimPod keeps of a pod in trouble (its
	// stuck container, an Unschedulable condition, a Failed pod's reason
	// and message); nil for every healthy pod, so they cost one pointer.
	// For a pod updated in place it also holds the conditions and the
	// observed generation that planner.TrimPod keeps of it.
	trouble *corev1.PodStatus
	// inPlace is the rest of what TrimPod keeps of a pod with the
	// controller's readiness gate or in-place record; nil for any other.
	inPlace *inPlaceMeta
}

// inPlaceMeta is what a pod updated in place adds to its record.
type inPlaceMeta struct {
	gated bool
	// annotations are the in-place record, the lifecycle hooks' and the
	// role probe's annotations, those of them the pod has; nil for none.
	annotations map[string]string
	generation  int64
}

// newPodRecord records what planner.TrimPod keeps of p.
func newPodRecord(p *corev1.Pod) *podRecord {
	t := planner.TrimPod(p)
	r := &podRecord{compactMeta: newCompactMeta(&t.ObjectMeta), hostname: t.Spec.Hostname,
		subdomain: intern(t.Spec.Subdomain), nodeName: intern(t.Spec.NodeName), claimVolumes: t.Spec.Volumes, phase: intern(string(t.Status.Phase)),
		podIP: p.Status.PodIP}
	if r.hostname == r.name {
		r.hostname = r.name // one string for both: the decoded hostname's bytes can go
	}
	var others []corev1.PodCondition
	for _, c := range t.Status.Conditions {
		if c.Type == corev1.PodReady && !r.hasReady {
			r.hasReady, r.readyStatus, r.readySince = true, intern(string(c.Status)), c.LastTransitionTime
			continue
		}
		others = append(others, c)
	}
	if st := t.Status; len(st.ContainerStatuses) > 0 || len(others) > 0 || st.Reason != "" || st.Message != "" || st.ObservedGeneration != 0 {
		r.trouble = &corev1.PodStatus{ContainerStatuses: st.ContainerStatuses, Conditions: others, Reason: st.Reason, Message: st.Message,
			ObservedGeneration: st.ObservedGeneration}
	}
	if len(t.Spec.ReadinessGates) > 0 || t.Annotations != nil || t.Generation != 0 {
		r.inPlace = &inPlaceMeta{gated: len(t.Spec.ReadinessGates) > 0, generation: t.Generation, annotations: t.Annotations}
	}
	return r
}

// pod returns a new pod equal to planner.TrimPod of the recorded pod. It
// shares volumes and the owner references' booleans with the record and
// other pods: callers never modify them (the planner copies what it
// changes).
func (r *podRecord) pod() *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: r.objectMeta()}
	p.Spec.Hostname, p.Spec.Subdomain, p.Spec.Volumes = r.hostname, value(r.subdomain), r.claimVolumes
	p.Spec.NodeName = value(r.nodeName)
	p.Status.Phase = corev1.PodPhase(value(r.phase))
	if r.hasReady {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady,
			Status: corev1.ConditionStatus(value(r.readyStatus)), LastTransitionTime: r.readySince}}
	}
	if t := r.trouble; t != nil {
		p.Status.ContainerStatuses, p.Status.Reason, p.Status.Message = t.ContainerStatuses, t.Reason, t.Message
		p.Status.Conditions = append(p.Status.Conditions, t.Conditions...)
		p.Status.ObservedGeneration = t.ObservedGeneration
	}
	if ip := r.inPlace; ip != nil {
		p.Generation = ip.generation
		if ip.gated {
			p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: v1alpha1.InPlaceReadinessGate}}
		}
		p.Annotations = ip.annotations
	}
	return p
}

// DeepCopyObject implements runtime.Object.
func (r *podRecord) DeepCopyObject() runtime.Object {
	out := *r
	out.compactMeta = r.compactMeta.deepCopy()
	if r.claimVolumes != nil {
		out.claimVolumes = make([]corev1.Volume, len(r.claimVolumes))
		for i := range r.claimVolumes {
			r.claimVolumes[i].DeepCopyInto(&out.claimVolumes[i])
		}
	}
	out.trouble = r.trouble.DeepCopy()
	if r.inPlace != nil {
		ip := *r.inPlace
		ip.annotations = maps.Clone(ip.annotations)
		out.inPlace = &ip
	}
	return &out
}

var (
	_ runtime.Object            = (*podRecord)(nil)
	_ metav1.ObjectMetaAccessor = (*podRecord)(nil)
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

// claimRecord is what the claim informer caches for each claim:
// planner.TrimClaim's fields with compact metadata, as for pods.
type claimRecord struct {
	compactMeta
	phase unique.Handle[string]
	// storage is the rest of planner.TrimClaim (annotations, storage spec
	// and status), nil when the claim has none of it.
	storage *corev1.PersistentVolumeClaim
}

func newClaimRecord(c *corev1.PersistentVolumeClaim) *claimRecord {
	t := planner.TrimClaim(c)
	r := &claimRecord{compactMeta: newCompactMeta(&t.ObjectMeta), phase: intern(string(t.Status.Phase))}
	storage := &corev1.PersistentVolumeClaim{Spec: t.Spec, Status: t.Status}
	storage.Annotations, storage.Status.Phase = t.Annotations, ""
	// A storage request, which every claim a set makes has, settles it
	// without a reflective walk of the whole claim.
	if len(storage.Spec.Resources.Requests) > 0 || !apiequality.Semantic.DeepEqual(storage, &corev1.PersistentVolumeClaim{}) {
		r.storage = storage.DeepCopy()
	}
	return r
}

// claim returns a new claim equal to planner.TrimClaim of the recorded one.
func (r *claimRecord) claim() *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: r.objectMeta()}
	if r.storage != nil {
		s := r.storage.DeepCopy()
		c.Annotations, c.Spec, c.Status = s.Annotations, s.Spec, s.Status
	}
	c.Status.Phase = corev1.PersistentVolumeClaimPhase(value(r.phase))
	return c
}

// DeepCopyObject implements runtime.Object.
func (r *claimRecord) DeepCopyObject() runtime.Object {
	out := *r
	out.compactMeta = r.compactMeta.deepCopy()
	if r.storage != nil {
		out.storage = r.storage.DeepCopy()
	}
	return &out
}

var (
	_ runtime.Object            = (*claimRecord)(nil)
	_ metav1.ObjectMetaAccessor = (*claimRecord)(nil)
)

// claimByName returns the cached claim namespace/name.
func claimByName(idx cache.Indexer, namespace, name string) (*corev1.PersistentVolumeClaim, bool) {
	r, ok := claimRecordByName(idx, namespace, name)
	if !ok {
		return nil, false
	}
	return r.claim(), true
}

// claimRecordByName returns the cached record of claim namespace/name.
func claimRecordByName(idx cache.Indexer, namespace, name string) (*claimRecord, bool) {
	obj, ok, err := idx.GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil, false
	}
	r, ok := obj.(*claimRecord)
	return r, ok
}

// GetObjectMeta is compactMeta's, with what a pod updated in place adds:
// its generation and in-place record.
func (r *podRecord) GetObjectMeta() metav1.Object {
	m := r.compactMeta.GetObjectMeta()
	if ip := r.inPlace; ip != nil {
		rm := m.(*recordMeta)
		rm.Generation = ip.generation
		rm.Annotations = maps.Clone(ip.annotations)
	}
	return m
}
