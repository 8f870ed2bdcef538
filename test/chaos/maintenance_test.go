package chaos

import (
	"context"
	"flag"
	"math/rand"
	"time"

	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

var flagDrains = flag.Float64("drains", 0.5,
	"probability that a run meets each maintenance of a node (ordinal node drain and a later uncordon; a cordon and uncordon alone), "+
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

// drainNode drains a node with pods of the run (ordinal node drain:
// cordon, evictions honouring every disruption budget), keeps it
// cordoned 0-10s after the drain ends, and uncordons it.
func (r *run) drainNode(ctx context.Context) bool {
	rng := r.shapes.maint
	node := r.shapeNodeFrom(ctx, rng)
	if node == "" {
		return false
	}
	stay := time.Duration(rng.Intn(11)) * time.Second
	r.logf("drain node %s (uncordon %s after)", node, stay)
	r.background(node, func() {
		err := nodes.Drain(ctx, r.client, node, nodes.DrainOptions{Timeout: drainTimeout, RetryInterval: time.Second,
			IgnoreDaemonSets: true, DeleteEmptyDirData: true})
		r.logf("node %s drained (%v)", node, errWord(err))
		time.Sleep(stay)
		err = nodes.Uncordon(ctx, r.client, node)
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
	if err := nodes.Cordon(ctx, r.client, node); err != nil {
		r.logf("cordon node %s: %v", node, err)
		r.shapes.release(node)
		return false
	}
	r.logf("cordon node %s (for %s)", node, stay)
	r.background(node, func() {
		time.Sleep(stay)
		err := nodes.Uncordon(ctx, r.client, node)
		r.logf("uncordon node %s (%v)", node, errWord(err))
	})
	return true
}
