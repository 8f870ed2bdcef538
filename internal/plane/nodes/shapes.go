package nodes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/conflict"
)

// Shapes a real cluster's nodes take that a controller must not trip on,
// beside failing and fencing (faults.go): a node deleted and registered
// again under its name (Replace), and one whose kubelet has posted no
// Ready condition (DropReadyCondition). A node whose name is not its
// hostname label is a Config.FQDN node, or one registered with its own
// label (Register).

// ReplaceOptions say how Replace registers the node again.
type ReplaceOptions struct {
	// After is how long the node stays deleted before it registers again.
	After time.Duration
	// Hostname, when set, is the new node's kubernetes.io/hostname label:
	// another machine under the old name. Empty keeps the old label: the
	// same machine, whose local volumes are still there.
	Hostname string
}

// Replace deletes node name and registers it again under the same name, as
// `kubectl delete node` and a kubelet that registers again do: a new
// object with a new UID. The new node keeps the old one's labels (but
// opts.Hostname), annotations and the taints it was registered with, not
// those the control plane or an administrator put on it (node.kubernetes.io/…);
// its Lease is deleted too, so the simulated kubelet takes the new node
// at once, heartbeating, as the returning machine's kubelet does.
func Replace(ctx context.Context, c kubernetes.Interface, name string, opts ReplaceOptions) error {
	if err := simulated(ctx, c, name); err != nil {
		return err
	}
	old, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading node %s: %w", name, err)
	}
	if err := c.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &old.UID}}); err != nil {
		return fmt.Errorf("deleting node %s: %w", name, err)
	}
	err = c.CoordinationV1().Leases(leaseNamespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the lease of node %s: %w", name, err)
	}
	select {
	case <-ctx.Done():
		return fmt.Errorf("node %s is deleted, not registered again: %w", name, ctx.Err())
	case <-time.After(opts.After):
	}
	return registerAgain(ctx, c, old, opts.Hostname)
}

// registerAgain creates the node old again (see Replace).
func registerAgain(ctx context.Context, c kubernetes.Interface, old *corev1.Node, hostname string) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: old.Name, Labels: old.Labels, Annotations: old.Annotations}}
	if hostname != "" {
		node.Labels[corev1.LabelHostname] = hostname
	}
	node.Spec.Taints = slices.DeleteFunc(slices.Clone(old.Spec.Taints), func(t corev1.Taint) bool {
		return strings.HasPrefix(t.Key, "node.kubernetes.io/")
	})
	_, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("registering node %s again: %w", old.Name, err)
	}
	return nil
}

// DropReadyCondition fails node name (Fail) and removes the Ready
// condition from its status, as a node whose kubelet registered it and
// never reported, or a status someone else wrote, shows it: no Ready
// condition at all, so no time since which it is NotReady. The node
// lifecycle controller marks such a node Ready Unknown after its startup
// grace period (a minute by default). Restore brings it back.
func DropReadyCondition(ctx context.Context, c kubernetes.Interface, name string) error {
	if err := Fail(ctx, c, name); err != nil {
		return err
	}
	return conflict.Retry(func() error {
		node, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading node %s: %w", name, err)
		}
		kept := slices.DeleteFunc(slices.Clone(node.Status.Conditions), func(cond corev1.NodeCondition) bool { return cond.Type == corev1.NodeReady })
		if len(kept) == len(node.Status.Conditions) {
			return nil
		}
		node.Status.Conditions = kept
		_, err = c.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
		return err
	})
}
