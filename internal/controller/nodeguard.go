package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// guardRefused is a destructive node-failure action left undone because a
// live read, right before it, no longer shows what the plan judged from
// the cache; the next sync plans again.
type guardRefused struct{ why string }

func (e *guardRefused) Error() string { return "not done: " + e.why }

func refuse(format string, args ...any) error {
	return &guardRefused{why: fmt.Sprintf(format, args...)}
}

// checkPodGuard reads the pod's node live before a force delete: it must
// be the object the plan judged (same UID), not answering (Ready Unknown)
// and not fenced (a fenced node's pods are the pod garbage collector's).
func (f *nodeFacts) checkPodGuard(ctx context.Context, g *planner.NodeGuard) error {
	node, err := f.client.CoreV1().Nodes().Get(ctx, g.Node, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return refuse("node %s is gone in a live read: its pods are the pod garbage collector's", g.Node)
	case err != nil:
		return fmt.Errorf("reading node %s live: %w", g.Node, err)
	case node.UID != g.UID:
		return refuse("node %s is another Node object in a live read (registered again)", g.Node)
	}
	st := osts.NodeState(node, time.Time{})
	switch {
	case st.Ready != corev1.ConditionUnknown:
		return refuse("node %s is Ready %q in a live read, not Unknown", g.Node, st.Ready)
	case st.OutOfService:
		return refuse("node %s is fenced in a live read: its pods are the pod garbage collector's", g.Node)
	}
	return nil
}

// checkClaimGuard lists the claim's host live before the claim is
// deleted: it must still be lost the way, and on the nodes, the
// quarantine ran on (nodeMemory.confirm); otherwise the quarantine starts
// again, or ends.
func (f *nodeFacts) checkClaimGuard(ctx context.Context, g *planner.NodeGuard) error {
	nodes, ok := listHost(ctx, f.client, g.Host)
	if !ok {
		return fmt.Errorf("listing the nodes of host %s live: the claim is kept", g.Host)
	}
	if !f.memory.confirm(g.Host, nodes) {
		return refuse("host %s is not lost as it was through the quarantine in a live read (%d nodes carry its label, %s)", g.Host, len(nodes), lossWord(osts.HostLoss(nodes)))
	}
	return nil
}

func lossWord(l planner.HostLoss) string {
	if l == "" {
		return "some of them live"
	}
	return string(l)
}

// guard runs the live check of a's guard; an action of the node-failure
// pass without a guard, or a controller without node facts, is refused.
func (c *apiPodControl) guard(ctx context.Context, a planner.Action) error {
	if a.Guard == nil || c.nodes == nil {
		return refuse("%s has no live check", doing(a))
	}
	if a.Kind == planner.DeleteClaim {
		return c.nodes.checkClaimGuard(ctx, a.Guard)
	}
	return c.nodes.checkPodGuard(ctx, a.Guard)
}
