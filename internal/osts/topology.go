package osts

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Topology is rollingUpdate.topology for the planner, with its defaults
// (the zone label, one pod per domain); nil when unset. Each node's
// domain is observed apart (Domains).
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

// Domains records in o, for a set with topology, the value of its key on
// each node of nodes that has the label (Observed.Domains); a set without
// topology observes none. Nodes that are not listed count as nodes
// without the label.
func Domains(e *planner.Extended, o *planner.Observed, nodes []*corev1.Node) {
	if e == nil || e.Topology == nil {
		return
	}
	o.Domains = make(map[string]string, len(nodes))
	for _, n := range nodes {
		if v, ok := n.Labels[e.Topology.Key]; ok {
			o.Domains[n.Name] = v
		}
	}
}
