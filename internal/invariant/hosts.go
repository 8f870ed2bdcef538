package invariant

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A host is the value of a node's kubernetes.io/hostname label: what a
// local volume is pinned by, whatever the node is called. A host is lost
// at an instant when every node carrying its label then is NotReady and
// out of service, or when none does (the node was deleted, or one
// registered again under its name with another label). A node's name
// never makes a host live: only its label.

// hostLostAt reports whether host was lost at instant at, by the states
// each node track had then: its last sample at or before at, or, when
// latest is set, its last sample of all (a state delivered after the
// decision being judged was committed before it).
func (r *replay) hostLostAt(host string, at time.Time, latest bool) bool {
	for _, nt := range r.nodes {
		n := nt.stateAt(at, latest)
		if n != nil && n.Labels[corev1.LabelHostname] == host && (nodeReady(n) || !outOfService(n)) {
			return false
		}
	}
	return true
}

// stateAt is the node as its track had it at at (nil: absent, or not yet
// seen); latest takes the last state of all.
func (nt *nodeTrack) stateAt(at time.Time, latest bool) *corev1.Node {
	var n *corev1.Node
	for _, s := range nt.history {
		if !latest && s.t.After(at) {
			break
		}
		n = s.state
	}
	return n
}

// hostLostThroughout reports whether host was lost at every instant of
// [from, to], judged at from and at every change of a node track inside
// it; "" when it was, else the first instant it was not, in words.
func (r *replay) hostLostThroughout(host string, from, to time.Time) string {
	if from.Before(r.began) {
		return fmt.Sprintf("the watch began at %s, after the quarantine's start %s: its loss cannot be shown", r.began.Format(clock), from.Format(clock))
	}
	if !r.hostLostAt(host, from, false) {
		return fmt.Sprintf("a live node carried it at %s", from.Format(clock))
	}
	for _, nt := range r.nodes {
		for _, s := range nt.history {
			if s.t.After(from) && !s.t.After(to) && !r.hostLostAt(host, s.t, false) {
				return fmt.Sprintf("a live node carried it at %s", s.t.Format(clock))
			}
		}
	}
	return ""
}

// hostLostWithin reports whether host was lost at some instant of
// [from, to]: the controller's live read right before its delete.
func (r *replay) hostLostWithin(host string, from, to time.Time) bool {
	if r.hostLostAt(host, from, false) || r.hostLostAt(host, to, true) {
		return true
	}
	for _, nt := range r.nodes {
		for _, s := range nt.history {
			if s.t.After(from) && !s.t.After(to) && r.hostLostAt(host, s.t, false) {
				return true
			}
		}
	}
	return false
}

const clock = "15:04:05.000"
