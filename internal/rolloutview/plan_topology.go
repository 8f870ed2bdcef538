package rolloutview

import (
	"fmt"
	"strings"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Topology is rollingUpdate.topology and the domains the plan sees, in
// the order the rolling update goes through them.
type Topology struct {
	Key                     string   `json:"key"`
	MaxUnavailablePerDomain int      `json:"maxUnavailablePerDomain"`
	Order                   []string `json:"order,omitempty"`
	// NodesRead is false when the nodes could not be read: the rolling
	// update then holds.
	NodesRead bool     `json:"nodesRead"`
	Domains   []Domain `json:"domains"`
}

// Domain is one topology domain's pods; Name is empty for nodes without
// the label.
type Domain struct {
	Name        string `json:"name"`
	Pods        int    `json:"pods"`
	Updated     int    `json:"updated"`
	Unavailable int    `json:"unavailable"`
	Active      bool   `json:"active,omitempty"`
	Done        bool   `json:"done,omitempty"`
}

// fillTopology adds the set's topology and, from the plan, its domains.
func fillTopology(x *ExtendedPlan, in *planner.Extended, obs planner.Observed, plan *planner.ExtendedPlan) {
	t := in.Topology
	if t == nil {
		return
	}
	x.Topology = &Topology{Key: t.Key, MaxUnavailablePerDomain: t.MaxUnavailablePerDomain, Order: t.Order, NodesRead: obs.Domains != nil, Domains: []Domain{}}
	if plan == nil {
		return
	}
	for _, d := range plan.Domains {
		x.Topology.Domains = append(x.Topology.Domains, Domain{Name: d.Name, Pods: d.Pods, Updated: d.Updated, Unavailable: d.Unavailable, Active: d.Active, Done: d.Done})
	}
}

// topologyWords says how the rolling update goes through the domains.
func topologyWords(t *Topology) string {
	head := fmt.Sprintf("by node label %s, one domain after another, at most %d unavailable per domain", t.Key, t.MaxUnavailablePerDomain)
	if len(t.Order) > 0 {
		head += "; order " + strings.Join(t.Order, ", ") + ", then the others by name"
	} else {
		head += "; domains by name"
	}
	head += ", nodes without the label last"
	if !t.NodesRead {
		return head + ". The nodes could not be read, so the rolling update holds."
	}
	return head + "."
}

// domainWords is one domain's line.
func domainWords(d Domain) string {
	name := d.Name
	if name == planner.NoDomain {
		name = "(no label)"
	}
	state := "waiting"
	switch {
	case d.Done:
		state = "done"
	case d.Active:
		state = "updating now"
	}
	return fmt.Sprintf("%s: %s, %d pods, %d updated, %d unavailable", name, state, d.Pods, d.Updated, d.Unavailable)
}

// countPartitionWords says which pods a Count partition keeps.
func countPartitionWords(r PlanReport) string {
	x, n := r.Extended, int32(0)
	if r.Partition != nil {
		n = *r.Partition
	}
	kept := "none"
	if len(x.Kept) > 0 {
		kept = strings.Join(x.Kept, ", ")
	}
	return fmt.Sprintf("Count %d: keeps %s at the current revision, the last of the update order (pods updated or being replaced first, then by weight, highest ordinal first).", n, kept)
}
