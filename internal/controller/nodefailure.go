package controller

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// hostIndex indexes nodes by their kubernetes.io/hostname label, which is
// what a local volume is pinned by: a node's name need not be its
// hostname (nodes named by their DNS name carry their short hostname).
const hostIndex = "hostname"

func indexByHost(obj any) ([]string, error) {
	n, ok := obj.(*corev1.Node)
	if !ok || n.Labels[corev1.LabelHostname] == "" {
		return nil, nil
	}
	return []string{n.Labels[corev1.LabelHostname]}, nil
}

// nodeFacts is the controller's view of nodes and volumes, which the
// node-failure pass of extended sets judges (planner.NodeFailure), and its
// memory of what it saw of them (nodeMemory). Only a controller that
// manages the extended kind and may read nodes and persistent volumes
// cluster-wide has it.
type nodeFacts struct {
	client  kubernetes.Interface
	nodes   corelisters.NodeLister
	hosts   cache.Indexer
	volumes corelisters.PersistentVolumeLister
	memory  *nodeMemory
	// quarantine is Options.NodeLossQuarantine.
	quarantine time.Duration
	// access says where the controller may delete claims.
	access *claimAccess
}

// watchNodes caches Nodes (indexed by hostname) and PersistentVolumes in
// factory, the node watch's own: it starts them when the first extended
// set is synced, and extended sets wait for them (nodewatch.go), not every
// sync. A change of a node's judged state (Ready, fenced, drained) wakes
// the extended sets with pods on it (nodewake.go); a Pending pod that a
// local claim holds to the node gets a new Unschedulable condition from
// the scheduler, which retries it when the node's taints change
// (TestAFenceAfterReplaceAfterGivesUpTheLocalVolume); a quarantine's end
// is a requeue of the plan. Every change of a node reaches the memory, so
// that a lost host seen back between two syncs starts its quarantine
// again.
func (c *Controller) watchNodes(factory informers.SharedInformerFactory, quarantine time.Duration) error {
	nodes, volumes := factory.Core().V1().Nodes(), factory.Core().V1().PersistentVolumes()
	if err := nodes.Informer().AddIndexers(cache.Indexers{hostIndex: indexByHost}); err != nil {
		return err
	}
	if quarantine <= 0 {
		quarantine = osts.DefaultNodeLossQuarantine
	}
	c.nodeFacts = &nodeFacts{client: c.client, nodes: nodes.Lister(), hosts: nodes.Informer().GetIndexer(), volumes: volumes.Lister(),
		memory: newNodeMemory(func() time.Time { return c.now() }), quarantine: quarantine,
		access: newClaimAccess(c.client, func() time.Time { return c.now() })}
	_, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { c.nodeFacts.nodeChanged(obj, false) },
		UpdateFunc: func(old, cur any) {
			c.nodeFacts.nodeChanged(cur, false)
			c.nodeStateChanged(old, cur)
		},
		DeleteFunc: func(obj any) { c.nodeFacts.nodeChanged(obj, true) },
	})
	return err
}

// nodeChanged keeps the memory honest between syncs: a host whose nodes
// changed is judged again from the cache, and a node that is gone, or no
// longer Unknown, loses its Unknown clock.
func (f *nodeFacts) nodeChanged(obj any, deleted bool) {
	n, ok := unwrap[*corev1.Node](obj)
	if !ok {
		return
	}
	if deleted || !nodeUnknown(n) {
		f.memory.forgetUnknown(n.UID)
	}
	if host := n.Labels[corev1.LabelHostname]; host != "" {
		f.memory.hostChanged(host, f.cachedHost(host))
	}
}

// judgeNodes judges the nodes an extended set's plan reads: those its
// pods run on and the hosts its claims' local volumes are pinned to, the
// quarantine, and, under volumes: Recreate, whether the controller may
// delete claims in the set's namespace. Without node facts it returns
// nil and the pass is off, which the plan reports for volumes: Recreate.
func (c *Controller) judgeNodes(ctx context.Context, in planner.Input) *planner.NodeFacts {
	ext := in.Extended
	if ext == nil || ext.NodeFailure == nil || c.nodeFacts == nil {
		return nil
	}
	facts := osts.JudgeNodes(ext.NodeFailure, in.Pods, in.Claims, &nodeReader{ctx: ctx, f: c.nodeFacts})
	facts.Quarantine = c.nodeFacts.quarantine
	if ext.NodeFailure.Volumes == v1alpha1.RecreateNodeFailureVolumes {
		facts.ClaimDeletion = c.nodeFacts.access.permission(ctx, in.Set.Namespace)
	}
	return facts
}

// cachedHost is the nodes the cache holds with hostname label host.
func (f *nodeFacts) cachedHost(host string) []*corev1.Node {
	objs, err := f.hosts.ByIndex(hostIndex, host)
	if err != nil {
		return nil
	}
	out := make([]*corev1.Node, 0, len(objs))
	for _, o := range objs {
		if n, ok := o.(*corev1.Node); ok {
			out = append(out, n)
		}
	}
	return out
}

// nodeReader is osts.NodeReader for one sync: the cache, read live where
// the cache has nothing (a node it has not seen yet must never pass for a
// gone one), and the memory.
type nodeReader struct {
	ctx context.Context
	f   *nodeFacts
}

var _ osts.NodeReader = (*nodeReader)(nil)

// Node returns the node called name, or nil when it is gone. An error
// other than NotFound is not gone: the node is then judged Ready, which
// no policy acts on.
func (r *nodeReader) Node(name string) *corev1.Node {
	node, err := r.f.nodes.Get(name)
	if err == nil {
		return node
	}
	node, err = r.f.client.CoreV1().Nodes().Get(r.ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	}
	return node
}

// Volume returns the volume called name from the cache, nil when unknown.
func (r *nodeReader) Volume(name string) *corev1.PersistentVolume {
	pv, err := r.f.volumes.Get(name)
	if err != nil {
		return nil
	}
	return pv
}

// Host returns the nodes labelled with host, from the cache; a host the
// cache has no node of is listed live by its label, and is judged only
// when that list succeeds.
func (r *nodeReader) Host(host string) ([]*corev1.Node, bool) {
	if nodes := r.f.cachedHost(host); len(nodes) > 0 {
		return nodes, true
	}
	return listHost(r.ctx, r.f.client, host)
}

// LostSince is the memory's.
func (r *nodeReader) LostSince(host string, loss planner.HostLoss, nodes []*corev1.Node) time.Time {
	return r.f.memory.lostSince(host, loss, nodes)
}

// UnknownSince is the memory's.
func (r *nodeReader) UnknownSince(node *corev1.Node) time.Time {
	return r.f.memory.unknownSince(node)
}

// listHost lists, live, the nodes whose kubernetes.io/hostname label is
// host; false when the list fails.
func listHost(ctx context.Context, client kubernetes.Interface, host string) ([]*corev1.Node, bool) {
	list, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{corev1.LabelHostname: host}).String()})
	if err != nil {
		return nil, false
	}
	out := make([]*corev1.Node, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, true
}

// nodeUnknown reports whether node's Ready condition is Unknown.
func nodeUnknown(node *corev1.Node) bool {
	return osts.NodeState(node, time.Time{}).Ready == corev1.ConditionUnknown
}
