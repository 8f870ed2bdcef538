package chaos

import (
	"context"
	"flag"
	"math/rand"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/provisioner"
)

var flagNodeShapes = flag.Float64("node-shapes", 0.5,
	"probability that a run meets each shape real clusters' nodes take (a node deleted and registered again under its name, "+
		"a fence on a Ready node, a node without a Ready condition), at a random step; drawn apart from the other ops, so a seed's other steps stay as they were")

// quarantine is the controllers' --node-loss-quarantine here: short, so
// that a lost host's claims are given up within a run, and long enough
// that a node registered again within a few seconds keeps them.
const quarantine = 15 * time.Second

// localClass is a StorageClass of the plane's provisioner whose volumes
// are local (pinned to the hostname of their first pod's node); half the
// extended sets' claims use it, so volumes: Recreate meets the node shapes.
const localClass = "chaos-local"

// Node shapes beside failing and removing nodes (nodefail_test.go,
// nodes_test.go). The plane names one of its three nodes by a fully
// qualified name unlike its hostname label (--fqdn-nodes). Each shape op
// runs in the background on a node with pods of the run that no other
// node fault holds, and the run waits for it before the user's last
// fixes. Its random draws come from r.shapes, not r.rng.
var shapeOps = []struct {
	name string
	do   func(r *run, ctx context.Context) bool
}{
	{"replace-node", (*run).replaceNode},
	{"fence-ready", (*run).fenceReady},
	{"no-ready-condition", (*run).dropReady},
}

// nodeShapes are the node shapes a run meets: the steps each happens at,
// drawn from the shapes stream.
type nodeShapes struct {
	rng *rand.Rand
	at  map[int][]int // step -> indexes into shapeOps
	// maint and maintAt are the maintenance ops' own stream and steps
	// (maintenance_test.go), apart so that the shapes stay as they were.
	maint   *rand.Rand
	maintAt map[int][]int // step -> indexes into maintenanceOps
	wg      sync.WaitGroup
	mu      sync.Mutex
	busy    map[string]bool
}

func newNodeShapes(seed int64, steps int) *nodeShapes {
	s := &nodeShapes{rng: rand.New(rand.NewSource(seed*7919 + 17)), at: map[int][]int{}, busy: map[string]bool{}}
	for i := range shapeOps {
		if s.rng.Float64() < *flagNodeShapes {
			step := s.rng.Intn(steps)
			s.at[step] = append(s.at[step], i)
		}
	}
	s.planMaintenance(seed, steps)
	return s
}

// shapesAt runs the shape ops of step i.
func (r *run) shapesAt(ctx context.Context, i int) {
	for _, k := range r.shapes.at[i] {
		if shapeOps[k].do(r, ctx) {
			r.faults++
		}
	}
	r.maintenanceAt(ctx, i)
}

// claim takes node for a shape op; false when another holds it.
func (s *nodeShapes) claim(node string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if node == "" || s.busy[node] {
		return false
	}
	s.busy[node] = true
	return true
}

func (s *nodeShapes) release(node string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.busy, node)
}

// shapeNode picks a node with pods of the run (from the shapes stream)
// and claims it; its pods are recorded as deleted by others, as a shape
// may have them evicted or collected.
func (r *run) shapeNode(ctx context.Context) string {
	return r.shapeNodeFrom(ctx, r.shapes.rng)
}

// shapeNodeFrom is shapeNode drawing from rng.
func (r *run) shapeNodeFrom(ctx context.Context, rng *rand.Rand) string {
	pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) == 0 {
		return ""
	}
	node := pods.Items[rng.Intn(len(pods.Items))].Spec.NodeName
	if !r.shapes.claim(node) {
		return ""
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == node {
			r.watcher.ExternalDelete(p.UID)
		}
	}
	return node
}

// background runs fn on node in the background, then releases it.
func (r *run) background(node string, fn func()) {
	r.shapes.wg.Add(1)
	go func() {
		defer r.shapes.wg.Done()
		defer r.shapes.release(node)
		fn()
	}()
}

// replaceNode deletes a node with pods of the run and registers it again
// under its name, the same machine (its hostname label), after 0-20s: as
// kubectl delete node and a kubelet that registers again do. Its claims
// must stay unless it was gone longer than the quarantine.
func (r *run) replaceNode(ctx context.Context) bool {
	node := r.shapeNode(ctx)
	if node == "" {
		return false
	}
	after := time.Duration(r.shapes.rng.Intn(21)) * time.Second
	r.logf("replace node %s (registers again after %s)", node, after)
	r.background(node, func() {
		err := nodes.Replace(ctx, r.client, node, nodes.ReplaceOptions{After: after})
		r.logf("node %s registered again (%v)", node, errWord(err))
	})
	return true
}

// fenceReady puts the out-of-service taint on a Ready node with pods of
// the run (as an autoscaler or a mistyped fence does) for 3-15s: taint
// eviction evicts its pods, but no claim may be given up for it.
func (r *run) fenceReady(ctx context.Context) bool {
	node := r.shapeNode(ctx)
	if node == "" {
		return false
	}
	stay := time.Duration(3+r.shapes.rng.Intn(13)) * time.Second
	if err := nodes.ForceFence(ctx, r.client, node); err != nil {
		r.logf("fence Ready node %s: %v", node, err)
		r.shapes.release(node)
		return false
	}
	r.logf("fence Ready node %s (for %s)", node, stay)
	r.background(node, func() {
		time.Sleep(stay)
		err := nodes.Unfence(ctx, r.client, node)
		r.logf("unfence node %s (%v)", node, errWord(err))
	})
	return true
}

// dropReady stops a node's heartbeats and removes its Ready condition for
// 5-20s (less than the node lifecycle controller's startup grace period,
// after which it would mark it Unknown), with each extended set given
// replaceAfterSeconds 3 or nothing: no pod may be force-deleted for it.
func (r *run) dropReady(ctx context.Context) bool {
	node := r.shapeNode(ctx)
	if node == "" {
		return false
	}
	r.givePoliciesFrom(ctx, r.shapes.rng)
	stay := time.Duration(5+r.shapes.rng.Intn(16)) * time.Second
	if err := nodes.DropReadyCondition(ctx, r.client, node); err != nil {
		r.logf("remove the Ready condition of node %s: %v", node, err)
		r.shapes.release(node)
		return false
	}
	r.logf("node %s: no heartbeats, no Ready condition (for %s)", node, stay)
	r.background(node, func() {
		time.Sleep(stay)
		err := nodes.Restore(ctx, r.client, node)
		r.logf("node %s restored (%v)", node, errWord(err))
	})
	return true
}

// givePoliciesFrom gives each extended set replaceAfterSeconds 3 or none,
// and volumes Recreate or Keep, drawn from rng.
func (r *run) givePoliciesFrom(ctx context.Context, rng *rand.Rand) {
	for _, cs := range r.sets {
		if !cs.extended {
			continue
		}
		p := r.randomPolicy(rng.Intn(2) == 0)
		err := r.mutateExtended(ctx, cs, func(s *v1alpha1.StatefulSet) { s.Spec.NodeFailurePolicy = p })
		r.logf("node-failure policy of %s: %s (%v)", cs.name, policyWords(p), errWord(err))
	}
}

// randomPolicy is replaceAfterSeconds 3 when replace, and volumes
// Recreate half the time (from the shapes stream); nil when neither.
func (r *run) randomPolicy(replace bool) *v1alpha1.NodeFailurePolicy {
	var p *v1alpha1.NodeFailurePolicy
	if replace {
		p = &v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr.To[int32](3)}
	}
	if r.shapes.rng.Intn(2) == 0 {
		if p == nil {
			p = &v1alpha1.NodeFailurePolicy{}
		}
		p.Volumes = v1alpha1.RecreateNodeFailureVolumes
	}
	return p
}

func policyWords(p *v1alpha1.NodeFailurePolicy) string {
	if p == nil {
		return "none"
	}
	words := "volumes " + string(p.Volumes)
	if p.Volumes == "" {
		words = "volumes Keep"
	}
	if p.ReplaceAfterSeconds != nil {
		words += ", replaceAfterSeconds 3"
	}
	return words
}

// ensureLocalClass creates localClass once per plane.
func ensureLocalClass(ctx context.Context, r *run) error {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: localClass}, Provisioner: provisioner.DefaultName,
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer), ReclaimPolicy: ptr.To(corev1.PersistentVolumeReclaimDelete),
		AllowVolumeExpansion: ptr.To(true)}
	_, err := r.client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
