package rolloutview

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/golden"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func zoneNode(name, zone string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1alpha1.DefaultTopologyKey: zone}}}
}

// The plan of a set with topology lists its domains in rollout order and
// says which one is updating and why the others wait; a Count partition
// names the pods it keeps.
func TestRenderTopologyAndCountPartitionPlans(t *testing.T) {
	now := testgen.Epoch.Add(2 * time.Minute)
	r := newRollout(testgen.Replicas(6), testgen.Parallel(), testgen.MaxUnavailable(3))
	nodes := []*corev1.Node{zoneNode("node-a", "zone-a"), zoneNode("node-b", "zone-b"), zoneNode("node-c", "zone-c")}
	tests := []struct {
		name, golden string
		change       func(*v1alpha1.StatefulSet)
		pods         []*corev1.Pod
	}{
		{name: "topology goes zone by zone", golden: "plan-extended-topology.txt",
			change: func(s *v1alpha1.StatefulSet) {
				rollingUpdate(s).Topology = &v1alpha1.RolloutTopology{Key: v1alpha1.DefaultTopologyKey, MaxUnavailablePerDomain: 1, Order: []string{"zone-c"}}
			},
			pods: zonedPods(r, map[int32]bool{2: true, 5: true})},
		{name: "a count partition keeps the primary", golden: "plan-extended-count-partition.txt",
			change: func(s *v1alpha1.StatefulSet) {
				primaryLast(s)
				rollingUpdate(s).Partition, rollingUpdate(s).PartitionMode = new32(1), v1alpha1.PartitionCount
			},
			pods: func() []*corev1.Pod {
				pods := zonedPods(r, nil)
				pods[0].Labels["role"] = "primary"
				return pods
			}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view, ext := extendedOf(t, r.set, tt.change, lastCompleted(r.oldRev.Name), lastProgress(testgen.Epoch))
			history := revs(r.oldRev, r.newRev)
			res, err := revision.Resolve(view, history)
			if err != nil {
				t.Fatal(err)
			}
			in, obs := osts.Extended(ext), osts.Observe(ext)
			osts.Domains(in, &obs, nodes)
			plan := planner.Compute(planner.Input{Set: view, Pods: tt.pods, Current: res.Current, Update: res.Update,
				CollisionCount: res.CollisionCount, Now: now, Extended: in, Observed: obs})
			report := NewPlanReport(view, res, history, plan)
			ExtendPlan(&report, in, obs, plan)
			var b strings.Builder
			RenderPlan(&b, report, now)
			golden.Check(t, tt.golden, b.String())
		})
	}
}

// zonedPods are six pods, web-i on node-a, node-b or node-c by i % 3, at
// the new revision where updated says so.
func zonedPods(r rollout, updated map[int32]bool) []*corev1.Pod {
	var out []*corev1.Pod
	for ord := range int32(6) {
		rev := r.oldRev
		if updated[ord] {
			rev = r.newRev
		}
		node := []string{"node-a", "node-b", "node-c"}[ord%3]
		out = append(out, testgen.Pod(r.set, ord, testgen.At(rev), func(p *corev1.Pod) { p.Spec.NodeName = node }))
	}
	return out
}

func new32(n int32) *int32 { return &n }
