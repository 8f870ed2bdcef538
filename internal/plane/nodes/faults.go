package nodes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/conflict"
)

// A simulated node fails the way a real one does when its kubelet can no
// longer reach the API server: its heartbeats stop. kwok plays the kubelet
// of a node only while it holds the node's Lease in kube-node-lease, so
// Fail hands that Lease to failedHolder for failedLeaseSeconds, as one
// last renewal, and nobody renews it again. From then on kwok neither renews the Lease nor writes the
// node's status or its pods' (they keep their last status, and a pod that
// is deleted stays Terminating), and the node lifecycle controller, seeing
// no renewal for --node-monitor-grace-period, marks the node NotReady
// (Ready Unknown, with the unreachable taints) as on any cluster. Restore
// deletes the Lease: kwok creates it again, takes the node back and
// replays its pods, as a kubelet does when it reconnects.
const (
	failedHolder       = "ordinal.dev/failed-node"
	failedLeaseSeconds = 10 * 365 * 24 * 3600
	leaseNamespace     = corev1.NamespaceNodeLease
)

// OutOfServiceTaint is the taint KEP-2268 defines: an administrator (or a
// fencing agent) puts it on a node known to be shut down, and the pod
// garbage collector then force-deletes the node's terminating pods and
// volumes detach. Its value and effect are upstream's documented ones.
var OutOfServiceTaint = corev1.Taint{Key: corev1.TaintNodeOutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute}

// FenceCommand is the kubectl command that fences node.
func FenceCommand(node string) string {
	return fmt.Sprintf("kubectl taint nodes %s %s=%s:%s", node, OutOfServiceTaint.Key, OutOfServiceTaint.Value, OutOfServiceTaint.Effect)
}

// ErrNotSimulated is returned for a node kwok does not play: only a
// simulated node's heartbeats can be stopped and started here.
var ErrNotSimulated = errors.New("not a simulated node of the plane (no kwok.x-k8s.io/node=fake annotation)")

// Fail stops the heartbeats of the simulated node name (see failedHolder).
// It is idempotent.
func Fail(ctx context.Context, c kubernetes.Interface, name string) error {
	if err := simulated(ctx, c, name); err != nil {
		return err
	}
	leases := c.CoordinationV1().Leases(leaseNamespace)
	return conflict.Retry(func() error {
		lease, err := leases.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			// kwok has not created it yet: create it held.
			lease = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: leaseNamespace}}
			lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
			lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds = new(failedHolder), new(int32(failedLeaseSeconds))
			_, err = leases.Create(ctx, lease, metav1.CreateOptions{})
			return err
		}
		if err != nil {
			return fmt.Errorf("reading the lease of node %s: %w", name, err)
		}
		// This write is the node's last heartbeat. Its renew time must
		// move on: the node lifecycle controller remembers the Lease only
		// when its renew time advances, and (with its lease circuit
		// breaker, on in 1.37) never marks a node NotReady while the live
		// Lease's resourceVersion differs from the one it remembers.
		lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds = new(failedHolder), new(int32(failedLeaseSeconds))
		lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
		_, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
		return err
	})
}

// Failed reports whether name's heartbeats are stopped by Fail.
func Failed(ctx context.Context, c kubernetes.Interface, name string) (bool, error) {
	lease, err := c.CoordinationV1().Leases(leaseNamespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading the lease of node %s: %w", name, err)
	}
	return lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity == failedHolder, nil
}

// Restore starts the heartbeats of a failed simulated node again; a node
// that was not failed is left alone. It does not remove the out-of-service
// taint: as on a real cluster, that is the administrator's step once the
// node is healthy (Unfence).
func Restore(ctx context.Context, c kubernetes.Interface, name string) error {
	if err := simulated(ctx, c, name); err != nil {
		return err
	}
	failed, err := Failed(ctx, c, name)
	if err != nil || !failed {
		return err
	}
	err = c.CoordinationV1().Leases(leaseNamespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the lease of node %s: %w", name, err)
	}
	return readyAgain(ctx, c, name)
}

// readyAgain reports the running pods of node Ready again, as a kubelet
// that reconnects does: while the node was lost, the node lifecycle
// controller marked them not Ready, and only that changed (their
// containers are still ready). A pod with readiness gates is left to the
// in-place part of the simulated kubelet (inplace.go).
func readyAgain(ctx context.Context, c kubernetes.Interface, node string) error {
	pods, err := c.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return fmt.Errorf("listing the pods of node %s: %w", node, err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning || len(p.Spec.ReadinessGates) > 0 ||
			condition(p, corev1.ContainersReady) != corev1.ConditionTrue || condition(p, corev1.PodReady) != corev1.ConditionFalse {
			continue
		}
		for j := range p.Status.Conditions {
			if p.Status.Conditions[j].Type == corev1.PodReady {
				p.Status.Conditions[j].Status, p.Status.Conditions[j].LastTransitionTime = corev1.ConditionTrue, metav1.Now()
				p.Status.Conditions[j].Reason, p.Status.Conditions[j].Message = "", ""
			}
		}
		if _, err := c.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("reporting pod %s/%s Ready: %w", p.Namespace, p.Name, err)
		}
	}
	return nil
}

func condition(p *corev1.Pod, t corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

// ErrReady is returned by Fence for a node whose Ready condition is True:
// the out-of-service taint says a node is shut down, and upstream's pod
// garbage collector and attach/detach controller act on it only beside
// NotReady. A person who knows the node is shut down although it still
// shows Ready (its heartbeats stopped less than a grace period ago)
// fences it with ForceFence.
var ErrReady = errors.New("is Ready: fence a node only once it is shut down")

// Fence puts OutOfServiceTaint on node name, any node that is not Ready
// (what FenceCommand does); it is idempotent. Fence a node only once it is
// really shut down: its pods are then deleted without waiting for them.
func Fence(ctx context.Context, c kubernetes.Interface, name string) error {
	return fence(ctx, c, name, false)
}

// ForceFence is Fence of a node whatever its Ready condition: a fencing
// agent that has just powered the node off, or an autoscaler or a mistake
// on a healthy node (which the tests rehearse).
func ForceFence(ctx context.Context, c kubernetes.Interface, name string) error {
	return fence(ctx, c, name, true)
}

func fence(ctx context.Context, c kubernetes.Interface, name string, force bool) error {
	var refused error
	err := editTaints(ctx, c, name, func(node *corev1.Node) []corev1.Taint {
		refused = nil
		if slices.ContainsFunc(node.Spec.Taints, isOutOfService) {
			return nil
		}
		if !force && nodeReady(node) {
			refused = fmt.Errorf("node %s %w (--force fences it anyway)", name, ErrReady)
			return nil
		}
		return append(node.Spec.Taints, OutOfServiceTaint)
	})
	return errors.Join(err, refused)
}

// nodeReady reports whether node's Ready condition is True.
func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Unfence removes the out-of-service taint from node name.
func Unfence(ctx context.Context, c kubernetes.Interface, name string) error {
	return editTaints(ctx, c, name, func(node *corev1.Node) []corev1.Taint {
		if !slices.ContainsFunc(node.Spec.Taints, isOutOfService) {
			return nil
		}
		return slices.DeleteFunc(slices.Clone(node.Spec.Taints), isOutOfService)
	})
}

func isOutOfService(t corev1.Taint) bool { return t.Key == corev1.TaintNodeOutOfService }

// editTaints writes the taints edit returns for the node; edit returns nil
// to write nothing.
func editTaints(ctx context.Context, c kubernetes.Interface, name string, edit func(*corev1.Node) []corev1.Taint) error {
	return conflict.Retry(func() error {
		node, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading node %s: %w", name, err)
		}
		taints := edit(node)
		if taints == nil {
			return nil
		}
		node.Spec.Taints = taints
		_, err = c.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{})
		return err
	})
}

// simulated returns ErrNotSimulated, wrapped, unless kwok plays node name.
func simulated(ctx context.Context, c kubernetes.Interface, name string) error {
	node, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading node %s: %w", name, err)
	}
	if node.Annotations[managedAnnotation] != "fake" {
		return fmt.Errorf("node %s: %w", name, ErrNotSimulated)
	}
	return nil
}

// Register creates a simulated node called name with these labels (and
// kubernetes.io/hostname, name unless labels give another) and taints;
// kwok plays it like the plane's own.
// Tests that fail nodes register their own, so no other test's pods are
// on them.
func Register(ctx context.Context, c kubernetes.Interface, name string, labels map[string]string, taints []corev1.Taint) error {
	node := newNode(name, name)
	for k, v := range labels {
		node.Labels[k] = v
	}
	node.Spec.Taints = taints
	if _, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("registering node %s: %w", name, err)
	}
	return nil
}
