package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// nodeFacts is the controller's view of nodes and volumes, which the
// node-failure pass of extended sets judges (planner.NodeFailure). Only a
// controller that manages the extended kind and may read nodes and
// persistent volumes cluster-wide has it.
type nodeFacts struct {
	nodes   corelisters.NodeLister
	volumes corelisters.PersistentVolumeLister
}

// watchNodes starts caching Nodes and PersistentVolumes. Their changes
// need no handler: a node that fails or is fenced changes its pods (the
// node lifecycle controller marks them not Ready, taint eviction and the
// pod garbage collector delete them), and those pod events sync the set;
// a Pending pod that a local claim holds to the node gets a new
// Unschedulable condition from the scheduler, which retries it when the
// node's taints change (TestAFenceAfterReplaceAfterGivesUpTheLocalVolume).
func (c *Controller) watchNodes(factory informers.SharedInformerFactory) {
	nodes, volumes := factory.Core().V1().Nodes(), factory.Core().V1().PersistentVolumes()
	c.nodeFacts = &nodeFacts{nodes: nodes.Lister(), volumes: volumes.Lister()}
	c.synced = append(c.synced, nodes.Informer().HasSynced, volumes.Informer().HasSynced)
}

// judgeNodes fills in the nodes an extended set's plan judges: those its
// pods run on and its claims' local volumes are pinned to. Without node
// facts the pass is off.
func (c *Controller) judgeNodes(ctx context.Context, in *planner.Input) {
	ext := in.Extended
	if ext == nil || ext.NodeFailure == nil {
		return
	}
	if c.nodeFacts == nil {
		ext.NodeFailure = nil
		return
	}
	osts.JudgeNodes(ext.NodeFailure, in.Pods, in.Claims, func(name string) *corev1.Node { return c.node(ctx, name) },
		func(name string) *corev1.PersistentVolume {
			pv, err := c.nodeFacts.volumes.Get(name)
			if err != nil {
				return nil
			}
			return pv
		})
}

// node returns the node called name, or nil when it is gone. A node the
// cache does not hold is read from the API server: a node the cache has
// not seen yet must never be judged gone, for a claim pinned to it would
// be given up.
func (c *Controller) node(ctx context.Context, name string) *corev1.Node {
	node, err := c.nodeFacts.nodes.Get(name)
	if err == nil {
		return node
	}
	node, err = c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		// Unknown is not gone: judge it as a Ready node, which no
		// policy acts on.
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	}
	return node
}
