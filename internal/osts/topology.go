package osts

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Topology is rollingUpdate.topology for the planner, with its defaults
// (the zone label, one pod per domain) and without the nodes' labels,
// which TopologyNodes adds; nil when unset.
func Topology(t *v1alpha1.RolloutTopology) *planner.Topology {
	if t == nil {
		return nil
	}
	out := &planner.Topology{Key: t.Key, MaxUnavailablePerDomain: int(t.MaxUnavailablePerDomain), Order: append([]string(nil), t.Order...)}
	if out.Key == "" {
		out.Key = v1alpha1.DefaultTopologyKey
	}
	out.MaxUnavailablePerDomain = max(out.MaxUnavailablePerDomain, 1)
	return out
}

// TopologyNodes gives a set with topology the value of its key on each
// node of nodes that has the label; a set without topology is left as
// it is. Nodes that are not listed count as nodes without the label.
func TopologyNodes(e *planner.Extended, nodes []*corev1.Node) {
	if e == nil || e.Topology == nil {
		return
	}
	e.Topology.Nodes = make(map[string]string, len(nodes))
	for _, n := range nodes {
		if v, ok := n.Labels[e.Topology.Key]; ok {
			e.Topology.Nodes[n.Name] = v
		}
	}
}
