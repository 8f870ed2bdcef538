package planner

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// ReasonTopologyUnknown warns that a set's rolling update goes by
// topology domains and the planner was not given the nodes' labels; the
// rolling update holds rather than disrupt pods whose domain it cannot
// tell.
const ReasonTopologyUnknown = "TopologyUnknown"

// NoDomain names the domain of pods on nodes without the topology label,
// which goes last.
const NoDomain = ""

// domains is one plan's view of the set's pods by topology domain.
type domains struct {
	topo *Topology
	// nodes are the nodes' domains by node name (Observed.Domains).
	nodes map[string]string
	// order is every domain with a pod, in rollout order; of is each
	// scheduled pod's domain by ordinal.
	order []string
	of    map[int32]string
	// unplaced counts the set's ordinals whose pod is missing or not yet
	// on a node: such a pod may land in any domain.
	unplaced int
}

// topologyDomains places the set's pods in domains; nil for a set without
// topology.
func (p *planner) topologyDomains() *domains {
	if p.ext == nil || p.ext.Topology == nil {
		return nil
	}
	d := &domains{topo: p.ext.Topology, nodes: p.in.Observed.Domains, of: map[int32]string{}, unplaced: p.missing()}
	seen := map[string]bool{}
	for _, s := range p.replicas {
		node := s.pod.Spec.NodeName
		if node == "" {
			d.unplaced++
			continue
		}
		name := d.nodes[node]
		d.of[s.ordinal] = name
		if !seen[name] {
			seen[name] = true
			d.order = append(d.order, name)
		}
	}
	slices.SortFunc(d.order, d.compare)
	return d
}

// compare orders domains: those Order lists in its order, then the others
// by name, NoDomain last.
func (d *domains) compare(a, b string) int {
	ia, ib := d.rank(a), d.rank(b)
	if ia != ib {
		return cmp.Compare(ia, ib)
	}
	return cmp.Compare(a, b)
}

func (d *domains) rank(name string) int {
	if name == NoDomain {
		return len(d.topo.Order) + 1
	}
	if i := slices.Index(d.topo.Order, name); i >= 0 {
		return i
	}
	return len(d.topo.Order)
}

// topologyReadable reports whether the rolling update may go on: a set
// without topology always may; one with topology only when the nodes'
// labels were given, otherwise it is warned about here.
func (p *planner) topologyReadable() bool {
	if p.ext == nil || p.ext.Topology == nil || p.in.Observed.Domains != nil {
		return true
	}
	p.warn(ReasonTopologyUnknown, "StatefulSet/"+p.set.Name, fmt.Sprintf(
		"updateStrategy.rollingUpdate.topology needs each pod's node label %s, and the nodes could not be read (a controller limited to one namespace reads them only with --read-nodes and the right to list and watch nodes); the rolling update does not proceed",
		p.ext.Topology.Key))
	return false
}

// progress counts each domain's pods, in rollout order, and marks the
// domain the rolling update works in: the first that is not done. A
// domain is done when none of its pods is unavailable and every one the
// rolling update replaces runs the update revision and, for a set whose
// claims follow its templates, has its claims updated too: a pod
// recreated at the update revision on a claim it kept still has its claim
// to grow.
func (p *planner) domainProgress(d *domains) []DomainProgress {
	out := make([]DomainProgress, len(d.order))
	pending := make([]bool, len(d.order))
	index := map[string]int{}
	for i, name := range d.order {
		out[i].Name, index[name] = name, i
	}
	minReady, now := p.set.Spec.MinReadySeconds, p.in.Now
	for _, s := range p.replicas {
		name, ok := d.of[s.ordinal]
		if !ok {
			continue
		}
		i := index[name]
		dp := &out[i]
		dp.Pods++
		updated := podRevision(s.pod) == p.update
		if updated && !isTerminating(s.pod) && !p.deleted[s.ordinal] {
			dp.Updated++
		}
		if isUnavailable(s.pod, minReady, now) || p.inPlaceBusy(s.pod) || p.deleted[s.ordinal] {
			dp.Unavailable++
		}
		if !pending[i] && p.rollingReplaces(s.ordinal) && (!updated || !p.storageDone(s)) {
			pending[i] = true
		}
	}
	active := false
	for i := range out {
		out[i].Done = out[i].Unavailable == 0 && !pending[i]
		if !out[i].Done && !active {
			out[i].Active, active = true, true
		}
	}
	return out
}

// domainBudget is what the budgeted rolling update asks before it takes
// an Available pod: nil lets every pod go (no topology).
type domainBudget struct {
	d        *domains
	progress []DomainProgress
	// waited is set once a wait explains the domain budget.
	waited bool
}

func (p *planner) newDomainBudget() *domainBudget {
	d := p.topologyDomains()
	if d == nil {
		return nil
	}
	return &domainBudget{d: d, progress: p.domainProgress(d)}
}

// allows reports whether the Available pod in s may be taken now: it is
// in the active domain, that domain has fewer than MaxUnavailablePerDomain
// pods unavailable (counting the pods not yet placed, which may land
// there), and, while some pod is not placed, the domain has already
// started (a pod updated or going), since the unplaced pod may belong to
// the domain before it.
func (b *domainBudget) allows(s slot) bool {
	if b == nil {
		return true
	}
	dp := b.active()
	if dp == nil || s.pod.Spec.NodeName == "" || b.d.of[s.ordinal] != dp.Name {
		return false
	}
	if b.d.unplaced > 0 && dp.Updated == 0 && dp.Unavailable == 0 {
		return false
	}
	return dp.Unavailable+b.d.unplaced < b.d.topo.MaxUnavailablePerDomain
}

// spend counts the pod in s, now deleted or changed, as unavailable in
// its domain.
func (b *domainBudget) spend(s slot) {
	if b == nil {
		return
	}
	for i := range b.progress {
		if b.progress[i].Name == b.d.of[s.ordinal] {
			b.progress[i].Unavailable++
		}
	}
}

func (b *domainBudget) active() *DomainProgress {
	for i := range b.progress {
		if b.progress[i].Active {
			return &b.progress[i]
		}
	}
	return nil
}

// topologyWaits explains why old-revision pods the set's budget would let
// go wait for their domain: the active domain's next pod waits for its
// domain's budget (or for pods not yet placed), or, when the active
// domain has none left, the next pod waits for its domain's turn. One
// wait says it; the others wait for the same.
func (p *planner) topologyWaits(b *domainBudget, pending []slot) {
	if b == nil || b.waited {
		return
	}
	dp, key := b.active(), b.d.topo.Key
	s, ok := b.next(dp, pending)
	if !ok {
		return
	}
	name := b.d.of[s.ordinal]
	var policy string
	switch {
	case dp == nil || name != dp.Name:
		policy = fmt.Sprintf("RollingUpdate topology %s: domains go one after another (%s); %s in %s waits until %s is updated and Available",
			key, domainList(b.d.order), s.pod.Name, domainWord(name), domainWord(activeName(dp)))
	case b.d.unplaced > 0 && dp.Updated == 0 && dp.Unavailable == 0:
		policy = fmt.Sprintf("RollingUpdate topology %s: %d pod(s) not yet on a node may land in a domain before %s, so %s waits until they are placed",
			key, b.d.unplaced, domainWord(name), s.pod.Name)
	default:
		policy = fmt.Sprintf("RollingUpdate topology %s: maxUnavailablePerDomain %d, %d unavailable in %s now and %d pod(s) not yet on a node, so %s waits",
			key, b.d.topo.MaxUnavailablePerDomain, dp.Unavailable, domainWord(name), b.d.unplaced, s.pod.Name)
	}
	p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, policy, ""))
	b.waited = true
}

// next is the pending pod a topology wait names: the first in the active
// domain, else the first placed one.
func (b *domainBudget) next(dp *DomainProgress, pending []slot) (slot, bool) {
	var first *slot
	for i, s := range pending {
		name, placed := b.d.of[s.ordinal]
		switch {
		case !placed:
		case dp != nil && name == dp.Name:
			return s, true
		case first == nil:
			first = &pending[i]
		}
	}
	if first == nil {
		return slot{}, false
	}
	return *first, true
}

func activeName(dp *DomainProgress) string {
	if dp == nil {
		return NoDomain
	}
	return dp.Name
}

// domainWord names a domain in plain words.
func domainWord(name string) string {
	if name == NoDomain {
		return "nodes without the label"
	}
	return name
}

func domainList(order []string) string {
	words := make([]string, len(order))
	for i, n := range order {
		words[i] = domainWord(n)
	}
	return strings.Join(words, ", ")
}

// planDomains are the set's domains for the plan's explanation; nil for
// a set without topology or whose nodes were not read.
func (p *planner) planDomains() []DomainProgress {
	d := p.topologyDomains()
	if d == nil || d.nodes == nil {
		return nil
	}
	return p.domainProgress(d)
}

func init() { registerGate(rankDomain, domainGateOf) }

// domainGateOf is the topology's gate: nil for a set without topology.
// A move takes any domain's pod its domain has room for (domainRoom);
// every other disruption, only the active domain's.
func domainGateOf(p *planner, r *round, d disruption) gate {
	if p.ext == nil || p.ext.Topology == nil {
		return nil
	}
	g := r.once("topology", func() gate {
		if b := p.newDomainBudget(); b != nil {
			return b
		}
		return nil
	})
	if b, ok := g.(*domainBudget); ok && d == move {
		return domainRoom{b}
	}
	return g
}

// domainRoom is the topology's gate for a move: the pod's domain has
// room for one more unavailable pod, whichever domain the rollout works
// in, since a move is not a rollout step. It counts in the same budget
// as the round's other disruptions.
type domainRoom struct{ b *domainBudget }

func (g domainRoom) admit(s slot) bool {
	name, ok := g.b.d.of[s.ordinal]
	if !ok {
		return true
	}
	for _, dp := range g.b.progress {
		if dp.Name == name {
			return dp.Unavailable < g.b.d.topo.MaxUnavailablePerDomain
		}
	}
	return true
}

func (g domainRoom) spend(s slot) { g.b.spend(s) }

func (g domainRoom) refusal(s slot) string {
	return fmt.Sprintf("its domain %s has maxUnavailablePerDomain %d unavailable", g.b.d.of[s.ordinal], g.b.d.topo.MaxUnavailablePerDomain)
}

func (b *domainBudget) admit(s slot) bool { return b.allows(s) }

// inTurn lets only the active domain's pods go; the first pod out of
// turn, while the budget has room, explains the wait.
func (b *domainBudget) inTurn(p *planner, r *round, s slot) bool {
	if b.allows(s) {
		return true
	}
	if r.budget.left > 0 {
		p.topologyWaits(b, []slot{s})
	}
	return false
}

// open holds the round while the nodes' domains are unknown
// (topologyReadable).
func (b *domainBudget) open(p *planner) bool { return p.topologyReadable() }

// explain says why pods the budget would let go wait for their domain;
// a round without budget left is the budget's to explain.
func (b *domainBudget) explain(p *planner, r *round, pending []slot) bool {
	if r.budget.left <= 0 {
		return false
	}
	p.topologyWaits(b, pending)
	return true
}
