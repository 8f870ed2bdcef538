package chaos

import (
	"context"
	"flag"
	"math/rand"
	"time"

	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ordinal-sh/ordinal/internal/drain"
)

var flagDrains = flag.Float64("drains", 0.5,
	"probability that a run meets each maintenance of a node (ordinal node drain, by evictions or eviction requests, and a later uncordon; "+
		"a cordon and uncordon alone; an eviction request for one pod alone), "+
		"at a random step; drawn from a stream of their own, so a seed's other steps and node shapes stay as they were")

// Maintenance of a node, as an administrator does it before an upgrade,
// interleaved with the run's rollouts and faults. Each op runs in the
// background on a node with pods of the run that no other node fault
// holds (its pods are recorded as deleted by others: a drain evicts
// them), like the node shapes, and the run waits for it before the
// user's last fixes.
var maintenanceOps = []struct {
	name string
	do   func(r *run, ctx context.Context) bool
}{
	{"drain-node", (*run).drainNode},
	{"cordon-node", (*run).cordonNode},
	{"request-eviction", (*run).requestEviction},
}

// planMaintenance draws the steps of the run's maintenance ops from a
// stream of their own.
func (s *nodeShapes) planMaintenance(seed int64, steps int) {
	s.maint, s.maintAt = rand.New(rand.NewSource(seed*7919+31)), map[int][]int{}
	for i := range maintenanceOps {
		if s.maint.Float64() < *flagDrains {
			step := s.maint.Intn(steps)
			s.maintAt[step] = append(s.maintAt[step], i)
		}
	}
}

// maintenanceAt runs the maintenance ops of step i.
func (r *run) maintenanceAt(ctx context.Context, i int) {
	for _, k := range r.shapes.maintAt[i] {
		if maintenanceOps[k].do(r, ctx) {
			r.faults++
		}
	}
}

// drainTimeout bounds a drain in a run: a budget that allows no
// disruption (or a pod that cannot start elsewhere behind one) holds it.
const drainTimeout = 60 * time.Second

// drainVias are the ways a drain asks pods to go; the plane serves
// eviction requests (plane_test.go), so each is real.
var drainVias = []string{drain.ViaEvictions, drain.ViaEvictionRequests}

// drainNode drains a node with pods of the run (ordinal node drain:
// cordon, then evictions honouring every disruption budget, or an
// eviction request per pod, which an extended set answers itself), keeps
// it cordoned 0-10s after the drain ends, and uncordons it.
func (r *run) drainNode(ctx context.Context) bool {
	rng := r.shapes.maint
	node := r.shapeNodeFrom(ctx, rng)
	if node == "" {
		return false
	}
	stay := time.Duration(rng.Intn(11)) * time.Second
	via := drainVias[rng.Intn(len(drainVias))]
	r.logf("drain node %s via %s (uncordon %s after)", node, via, stay)
	r.background(node, func() {
		err := drain.Drain(ctx, r.client, node, drain.Options{Timeout: drainTimeout, RetryInterval: time.Second,
			IgnoreDaemonSets: true, DeleteEmptyDirData: true, Via: via})
		r.logf("node %s drained (%v)", node, errWord(err))
		time.Sleep(stay)
		err = drain.Uncordon(ctx, r.client, node)
		r.logf("uncordon node %s (%v)", node, errWord(err))
	})
	return true
}

// cordonNode cordons a node with pods of the run for 3-15s and uncordons
// it: nothing is evicted.
func (r *run) cordonNode(ctx context.Context) bool {
	rng := r.shapes.maint
	node := r.shapeNodeFrom(ctx, rng)
	if node == "" {
		return false
	}
	stay := time.Duration(3+rng.Intn(13)) * time.Second
	if err := drain.Cordon(ctx, r.client, node); err != nil {
		r.logf("cordon node %s: %v", node, err)
		r.shapes.release(node)
		return false
	}
	r.logf("cordon node %s (for %s)", node, stay)
	r.background(node, func() {
		time.Sleep(stay)
		err := drain.Uncordon(ctx, r.client, node)
		r.logf("uncordon node %s (%v)", node, errWord(err))
	})
	return true
}

// evictionRequester is the requester of requestEviction's requests.
const evictionRequester = "chaos.ordinal.dev/descheduler"

// requestEviction asks for one pod of the run to go with an
// EvictionRequest alone, no cordon (as a descheduler does), and
// withdraws the request once the pod is gone or after 5-30s. An extended
// set moves the pod itself, in its own turn; an apps/v1 set's pod (or
// one the set declines) goes through the plane's evictor under its
// budgets. The pod is recorded as deleted by others, as a drain's are:
// the checker judges its eviction by the quorum and switchover rules.
func (r *run) requestEviction(ctx context.Context) bool {
	rng := r.shapes.maint
	pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) == 0 {
		return false
	}
	pod := pods.Items[rng.Intn(len(pods.Items))]
	stay := time.Duration(5+rng.Intn(26)) * time.Second
	if pod.DeletionTimestamp != nil {
		return false
	}
	r.watcher.ExternalDelete(pod.UID)
	requests := r.client.LifecycleV1alpha1().EvictionRequests(r.ns)
	er := &lifecyclev1alpha1.EvictionRequest{ObjectMeta: metav1.ObjectMeta{GenerateName: "chaos-" + pod.Name + "-"},
		Spec: lifecyclev1alpha1.EvictionRequestSpec{
			Target:    lifecyclev1alpha1.EvictionRequestTarget{Pod: &lifecyclev1alpha1.EvictionRequestPodReference{Name: pod.Name, UID: pod.UID}},
			Requester: evictionRequester, Intent: lifecyclev1alpha1.EvictionRequestIntentEviction}}
	made, err := requests.Create(ctx, er, metav1.CreateOptions{})
	if err != nil {
		r.logf("request eviction of %s: %v", pod.Name, err)
		return false
	}
	r.logf("request eviction of %s (withdrawn once gone or after %s)", pod.Name, stay)
	r.shapes.wg.Add(1)
	go func() {
		defer r.shapes.wg.Done()
		gone := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, stay, true, func(ctx context.Context) (bool, error) {
			p, err := r.client.CoreV1().Pods(r.ns).Get(ctx, pod.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err) || err == nil && p.UID != pod.UID, nil
		}) == nil
		err := requests.Delete(context.Background(), made.Name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			err = nil
		}
		r.logf("eviction request of %s withdrawn (pod gone %v; %v)", pod.Name, gone, errWord(err))
	}()
	return true
}
