package osts_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

func node(name string, labels map[string]string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func TestTopologyAndItsNodesReachThePlanner(t *testing.T) {
	ext := asExtended(t, []byte(withServiceAccount))
	e, o := osts.Extended(ext), &planner.Observed{}
	osts.Domains(e, o, []*corev1.Node{node("n0", map[string]string{v1alpha1.DefaultTopologyKey: "a"})})
	if e.Topology != nil || o.Domains != nil {
		t.Errorf("a set without topology has %+v and observes domains %v", e.Topology, o.Domains)
	}
	ext.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{
		Topology: &v1alpha1.RolloutTopology{Key: "rack", Order: []string{"r2"}},
	}
	e = osts.Extended(ext)
	want := &planner.Topology{Key: "rack", MaxUnavailablePerDomain: 1, Order: []string{"r2"}}
	if diff := cmp.Diff(want, e.Topology); diff != "" {
		t.Errorf("topology (-want +got), the unset budget at least 1:\n%s", diff)
	}
	osts.Domains(e, o, []*corev1.Node{node("n0", map[string]string{"rack": "r1"}), node("n1", map[string]string{"zone": "x"}), node("n2", map[string]string{"rack": "r2"})})
	if diff := cmp.Diff(map[string]string{"n0": "r1", "n2": "r2"}, o.Domains); diff != "" {
		t.Errorf("domains (-want +got), n1 without the label:\n%s", diff)
	}
	ext.Spec.UpdateStrategy.RollingUpdate.Topology = &v1alpha1.RolloutTopology{MaxUnavailablePerDomain: 2}
	if got := osts.Extended(ext).Topology; got.Key != v1alpha1.DefaultTopologyKey || got.MaxUnavailablePerDomain != 2 {
		t.Errorf("topology %+v, want the zone label by default and budget 2", got)
	}
}

func TestPartitionModeReachesThePlanner(t *testing.T) {
	ext := asExtended(t, []byte(withServiceAccount))
	for mode, want := range map[v1alpha1.PartitionMode]bool{"": false, v1alpha1.PartitionOrdinal: false, v1alpha1.PartitionCount: true} {
		ext.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{PartitionMode: mode}
		if got := osts.Extended(ext).PartitionCount; got != want {
			t.Errorf("partitionMode %q: count %v, want %v", mode, got, want)
		}
	}
}
