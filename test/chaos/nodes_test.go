package chaos

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// removeNode deletes a Node object with pods of this run. The plane's pod
// garbage collector then marks its pods Failed and deletes them (after its
// 40s quarantine); once they are gone the node is created again, so
// capacity returns. It runs in the background; stopFaults waits for it.
func (r *run) removeNode(ctx context.Context) {
	pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) == 0 {
		return
	}
	nodeName := pods.Items[r.rng.Intn(len(pods.Items))].Spec.NodeName
	if nodeName == "" {
		return
	}
	node, err := r.client.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		return
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == nodeName {
			r.watcher.ExternalDelete(p.UID)
		}
	}
	if !r.shapes.claim(nodeName) {
		r.logf("node %s is already under a node shape", nodeName)
	}
	if err := r.client.CoreV1().Nodes().Delete(ctx, nodeName, metav1.DeleteOptions{}); err != nil {
		r.logf("remove node %s: %v", nodeName, err)
		r.shapes.release(nodeName)
		return
	}
	r.faults++
	r.logf("remove node %s", nodeName)
	r.nodeLoss.Add(1)
	go func() {
		defer r.nodeLoss.Done()
		defer r.shapes.release(nodeName)
		err := r.restoreNode(ctx, node)
		r.logf("node %s back (%v)", nodeName, errWord(err))
	}()
}

// restoreNode waits until no pod is bound to the node, then recreates it.
func (r *run) restoreNode(ctx context.Context, old *corev1.Node) error {
	deadline := time.Now().Add(150 * time.Second)
	for time.Now().Before(deadline) {
		pods, err := r.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("spec.nodeName", old.Name).String()})
		if err == nil && len(pods.Items) == 0 {
			break
		}
		time.Sleep(time.Second)
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: old.Name, Labels: old.Labels, Annotations: old.Annotations}}
	var err error
	for try := 0; try < 60; try++ { // the plane may be restarting
		if _, err = r.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err == nil || apierrors.IsAlreadyExists(err) {
			return nil
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("recreating node: %w", err)
}
