package controller

import (
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// nodeMemory is what the controller remembers of nodes between syncs,
// shared by every set: since when each lost host has been lost (the
// quarantine's clock) and since when each node whose Ready condition is
// Unknown without a lastTransitionTime was seen so (replaceAfterSeconds'
// clock for it). Both start when the controller first sees the state, so
// a controller that restarts starts them again: it waits longer, never
// less. Safe for concurrent use.
type nodeMemory struct {
	now     func() time.Time
	mu      sync.Mutex
	lost    map[string]lostHost
	unknown map[types.UID]time.Time
}

// lostHost is one host's unbroken run of lost observations: how it is
// lost, on which Node objects (by UID: a node deleted and registered again
// under its name is another object, and starts the run again), and since
// when.
type lostHost struct {
	loss  planner.HostLoss
	nodes string
	since time.Time
}

func newNodeMemory(now func() time.Time) *nodeMemory {
	return &nodeMemory{now: now, lost: map[string]lostHost{}, unknown: map[types.UID]time.Time{}}
}

// uidsOf is the sorted UIDs of nodes, as one string.
func uidsOf(nodes []*corev1.Node) string {
	uids := make([]string, len(nodes))
	for i, n := range nodes {
		uids[i] = string(n.UID)
	}
	slices.Sort(uids)
	return strings.Join(uids, ",")
}

// lostSince is when host was first seen lost as loss on nodes, in the run
// of observations this one continues; a different loss or other nodes
// start a new run now.
func (m *nodeMemory) lostSince(host string, loss planner.HostLoss, nodes []*corev1.Node) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	uids := uidsOf(nodes)
	if rec, ok := m.lost[host]; ok && rec.loss == loss && rec.nodes == uids {
		return rec.since
	}
	rec := lostHost{loss: loss, nodes: uids, since: m.now()}
	m.lost[host] = rec
	return rec.since
}

// hostChanged judges a host the memory follows again, from nodes, the
// ones now carrying its label: a host no longer lost is forgotten, one
// lost otherwise starts a new run.
func (m *nodeMemory) hostChanged(host string, nodes []*corev1.Node) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.lost[host]
	if !ok {
		return
	}
	loss := osts.HostLoss(nodes)
	switch uids := uidsOf(nodes); {
	case loss == "":
		delete(m.lost, host)
	case loss != rec.loss || uids != rec.nodes:
		m.lost[host] = lostHost{loss: loss, nodes: uids, since: m.now()}
	}
}

// confirm checks a live read of host's nodes against the run the plan
// acted on: true when the host is still lost the same way on the same
// nodes; otherwise the live read ends the run, or starts a new one.
func (m *nodeMemory) confirm(host string, nodes []*corev1.Node) bool {
	loss, uids := osts.HostLoss(nodes), uidsOf(nodes)
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.lost[host]
	switch {
	case ok && loss == rec.loss && uids == rec.nodes:
		return true
	case loss == "":
		delete(m.lost, host)
	default:
		m.lost[host] = lostHost{loss: loss, nodes: uids, since: m.now()}
	}
	return false
}

// unknownSince is when node, Ready Unknown without a lastTransitionTime,
// was first seen so; zero for any other node.
func (m *nodeMemory) unknownSince(node *corev1.Node) time.Time {
	st := osts.NodeState(node, time.Time{})
	if st.Ready != corev1.ConditionUnknown || !st.Since.IsZero() {
		return time.Time{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if since, ok := m.unknown[node.UID]; ok {
		return since
	}
	m.unknown[node.UID] = m.now()
	return m.unknown[node.UID]
}

// forgetUnknown forgets node uid's Unknown clock: it is Ready, False,
// without a condition, or gone.
func (m *nodeMemory) forgetUnknown(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.unknown, uid)
}
