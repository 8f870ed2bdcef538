package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

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
	ext := &planner.Extended{Topology: &planner.Topology{Key: "topology.kubernetes.io/zone"}}
	(&Controller{}).topologyNodes(ext)
	if ext.Topology.Nodes != nil {
		t.Errorf("nodes %v without a node cache, want unknown (nil)", ext.Topology.Nodes)
	}
	(&Controller{nodeFacts: &nodeFacts{nodes: corelisters.NewNodeLister(idx)}}).topologyNodes(ext)
	if diff := cmp.Diff(map[string]string{"n0": "a"}, ext.Topology.Nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
}
