package controller

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// nodeStateChanged wakes the extended sets with pods on a node whose
// state, as their plans judge it, changed: its Ready condition (True,
// False, Unknown, or none), the out-of-service taint, or its drain
// (cordoned or uncordoned, a drain taint put on or taken off). Most of
// these change the node's pods too (the node lifecycle controller marks
// them not Ready, taint eviction deletes them), but not all, and not at
// once: a cordon changes no pod, nor does a Ready condition that
// disappears (the lifecycle controller waits out its startup grace period
// before it judges such a node), so no pod event would sync the set, and
// its status would go on saying nothing of the node for as long. A
// node's heartbeats change none of this, so they wake nothing; a change
// is rare, and a walk of the pod cache is its cost.
func (c *Controller) nodeStateChanged(old, cur any) {
	o, ok := unwrap[*corev1.Node](old)
	n, ok2 := unwrap[*corev1.Node](cur)
	if !ok || !ok2 || judgedState(o) == judgedState(n) {
		return
	}
	for _, obj := range c.podIdx.List() {
		r, ok := obj.(*podRecord)
		if !ok || value(r.nodeName) != n.Name {
			continue
		}
		if ref := r.controllerRef(); ref != nil {
			if kind, ours := setkind.OfOwner(ref); ours && doorFor(kind).nodeJudged() {
				c.enqueueOwner(r.Namespace(), ref)
			}
		}
	}
}

// nodeJudged is what of a node the node-failure and node-drain passes
// read, but for its clock.
type nodeJudged struct {
	ready        corev1.ConditionStatus
	outOfService bool
	drain        string
}

func judgedState(n *corev1.Node) nodeJudged {
	st := osts.NodeState(n, time.Time{})
	return nodeJudged{ready: st.Ready, outOfService: st.OutOfService, drain: st.Drain}
}
