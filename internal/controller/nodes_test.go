package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// A controller with a node cache gives a set with topology its nodes'
// labels, keeping only name and labels of each node; one without (a
// controller of one namespace) leaves them unknown, so the plan holds.
func TestTopologyNodesComeFromTheNodeCache(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n0", Labels: map[string]string{"topology.kubernetes.io/zone": "a"}},
		Status: corev1.NodeStatus{Images: []corev1.ContainerImage{{Names: []string{"big"}}}}}
	stripped, err := stripForCache(node)
	if err != nil {
		t.Fatal(err)
	}
	if n := stripped.(*corev1.Node); len(n.Status.Images) != 0 || n.Labels["topology.kubernetes.io/zone"] != "a" {
		t.Errorf("cached node %+v, want its name and labels only", n)
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := idx.Add(stripped); err != nil {
		t.Fatal(err)
	}
	ext, o := &planner.Extended{Topology: &planner.Topology{Key: "topology.kubernetes.io/zone"}}, &planner.Observed{}
	(&Controller{}).topologyNodes(ext, o)
	if o.Domains != nil {
		t.Errorf("nodes %v without a node cache, want unknown (nil)", o.Domains)
	}
	(&Controller{nodeFacts: &nodeFacts{nodes: corelisters.NewNodeLister(idx)}}).topologyNodes(ext, o)
	if diff := cmp.Diff(map[string]string{"n0": "a"}, o.Domains); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
}

// The cache keeps of a volume what the node-failure pass reads of it: the
// claim it is bound to and the node it is pinned to, and nothing else it
// carries (managed fields, annotations, capacity, its source).
func TestTheVolumeCacheKeepsWhatTheNodeFailurePassReads(t *testing.T) {
	pinned := &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"n0"}}}}}}}
	claimRef := &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "default", Name: "data-web-0", UID: "claim-uid"}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv0", UID: "pv-uid", ResourceVersion: "7", Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": "local"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "provisioner"}}},
		Spec: corev1.PersistentVolumeSpec{ClaimRef: claimRef, NodeAffinity: pinned, StorageClassName: "local",
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/pv0"}}},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	}
	stripped, err := stripForCache(pv.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv0", UID: "pv-uid", ResourceVersion: "7"},
		Spec: corev1.PersistentVolumeSpec{ClaimRef: claimRef, NodeAffinity: pinned}}
	if diff := cmp.Diff(want, stripped); diff != "" {
		t.Errorf("cached volume (-want +got):\n%s", diff)
	}
	if got := osts.PinnedHost(stripped.(*corev1.PersistentVolume)); got != "n0" {
		t.Errorf("the cached volume is pinned to %q, want n0 as the volume is", got)
	}
}
