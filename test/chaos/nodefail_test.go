package chaos

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// nodeGrace is the chaos plane's node monitor grace period: a failed node
// is NotReady this long after its last heartbeat.
const nodeGrace = 10 * time.Second

// failNode stops the heartbeats of a simulated node with pods of this run
// (ordinal node fail). Each extended set of the run first gets, as a user
// write, replaceAfterSeconds 3 or not, and volumes Recreate or Keep, at
// random. In the background the node then stays failed for 5-25s; half
// the time it is fenced meanwhile (its pods are then the pod garbage
// collector's, and taint eviction's deletions are recorded as someone
// else's) and unfenced once no pod is bound to it; then it is restored.
// The run waits for it before the user's last fixes. A claim on network
// storage may never be lost; one on a local volume only under volumes:
// Recreate, once its node was NotReady and fenced for the quarantine.
func (r *run) failNode(ctx context.Context) {
	pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) == 0 {
		return
	}
	node := pods.Items[r.rng.Intn(len(pods.Items))].Spec.NodeName
	if node == "" {
		return
	}
	r.givePolicies(ctx)
	if !r.shapes.claim(node) {
		r.logf("node %s is already under a node shape", node)
	}
	if err := nodes.Fail(ctx, r.client, node); err != nil {
		r.logf("fail node %s: %v", node, err)
		r.shapes.release(node)
		return
	}
	r.faults++
	stay, fence := time.Duration(5+r.rng.Intn(21))*time.Second, r.rng.Intn(2) == 0
	r.logf("fail node %s (for %s, fenced %t)", node, stay, fence)
	r.nodeFail.Add(1)
	go func() {
		defer r.nodeFail.Done()
		defer r.shapes.release(node)
		time.Sleep(stay)
		if fence {
			r.fence(ctx, node)
		}
		err := nodes.Restore(ctx, r.client, node)
		r.logf("node %s restored (%v)", node, errWord(err))
	}()
}

// givePolicies gives each extended set replaceAfterSeconds 3 or none
// (drawn from the run's stream, as before node shapes came) and volumes
// Recreate or Keep (from the shapes stream).
func (r *run) givePolicies(ctx context.Context) {
	r.givePoliciesFrom(ctx, r.rng)
}

// fence marks node out of service, waits (at most 90s) until the pod
// garbage collector has removed every pod bound to it, and unfences it.
func (r *run) fence(ctx context.Context, node string) {
	onNode := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String()}
	if pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, onNode); err == nil {
		for _, p := range pods.Items {
			r.watcher.ExternalDelete(p.UID)
		}
	}
	// The node is shut down, although it may not show NotReady yet.
	if err := nodes.ForceFence(ctx, r.client, node); err != nil {
		r.logf("fence node %s: %v", node, err)
		return
	}
	r.logf("fence node %s", node)
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		pods, err := r.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, onNode)
		if err == nil && len(pods.Items) == 0 {
			break
		}
		time.Sleep(time.Second)
	}
	err := nodes.Unfence(ctx, r.client, node)
	r.logf("unfence node %s (%v)", node, errWord(err))
}
