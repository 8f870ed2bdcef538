package planner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// onNode puts a pod on node.
func onNode(node string) testgen.PodOption {
	return func(p *corev1.Pod) { p.Spec.NodeName = node }
}

// nodes gives the plan a node-failure policy and what it knows of nodes;
// node-1 and node-2 are Ready unless states says otherwise.
func nodes(volumes v1alpha1.NodeFailureVolumes, replaceAfter *time.Duration, states map[string]planner.NodeState, claimNodes map[string]string) func(*planner.Extended) {
	return func(e *planner.Extended) {
		nf := &planner.NodeFailure{Volumes: volumes, ClaimNodes: claimNodes, Nodes: map[string]planner.NodeState{
			"node-1": {Ready: true}, "node-2": {Ready: true}}}
		for n, st := range states {
			nf.Nodes[n] = st
		}
		if replaceAfter != nil {
			nf.Replace, nf.ReplaceAfter = true, *replaceAfter
		}
		e.NodeFailure = nf
	}
}

func blockedReasons(plan planner.Plan) []string {
	var out []string
	for _, b := range plan.Extended.Status.BlockedBy {
		out = append(out, b.Pod+" "+b.Reason)
	}
	return out
}

func TestAPodOnALostNodeIsNamedWithTheFenceCommand(t *testing.T) {
	f := steady(testgen.Replicas(2))
	notReady := planner.NodeState{Since: now.Add(-time.Minute)}
	plan := f.ext(extended(nodes("", nil, map[string]planner.NodeState{"node-3": notReady}, nil)),
		f.pod(0, onNode("node-1")), f.pod(1, onNode("node-3"), testgen.Terminating(now.Add(-30*time.Second))))
	if diff := cmp.Diff([]string{"web-1 NodeLost"}, blockedReasons(plan)); diff != "" {
		t.Fatalf("blockedBy (-want +got):\n%s", diff)
	}
	msg := plan.Extended.Status.BlockedBy[0].Message
	for _, want := range []string{"web-1 is stuck Terminating on node node-3", "kubectl taint nodes node-3 node.kubernetes.io/out-of-service=nodeshutdown:NoExecute", "stays until the node returns or is fenced"} {
		if !strings.Contains(msg, want) {
			t.Errorf("blockedBy message %q does not say %q", msg, want)
		}
	}
	if len(plan.Steps) != 0 {
		t.Errorf("without a policy the plan acts: %v", f.summary(plan))
	}
	if len(plan.Waits) == 0 || !strings.Contains(plan.Waits[0].Hint, "fence it") {
		t.Errorf("waits %+v do not tell how to fence the node", plan.Waits)
	}
	if len(plan.Warnings) != 1 || plan.Warnings[0].Reason != planner.ReasonNodeLost {
		t.Errorf("warnings %+v, want one NodeLost", plan.Warnings)
	}
}

func TestReplaceAfterForceDeletesOnlyPodsOfNodesNotReadyForThatLong(t *testing.T) {
	f := steady(testgen.Replicas(3))
	after := 30 * time.Second
	states := map[string]planner.NodeState{
		"old":    {Since: now.Add(-time.Minute)},
		"recent": {Since: now.Add(-10 * time.Second)},
		"fenced": {Since: now.Add(-time.Minute), OutOfService: true},
	}
	tests := []struct {
		name    string
		node    string
		replace *time.Duration
		want    []string
		requeue time.Duration
	}{
		{name: "a pod of a node NotReady for longer than replaceAfter is force-deleted", node: "old", replace: &after,
			want: []string{"node failure: ForceDeletePod web-2"}},
		{name: "a pod of a node NotReady for less is not, and the set is synced again when it is due", node: "recent", replace: &after,
			requeue: 20 * time.Second},
		{name: "a pod of a fenced node is left to the pod garbage collector", node: "fenced", replace: &after},
		{name: "a pod of a deleted node is left to the pod garbage collector", node: "gone", replace: &after},
		{name: "without replaceAfter no pod is force-deleted", node: "old"},
		{name: "a pod of a Ready node is never force-deleted", node: "node-2", replace: new(time.Duration(0))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := f.ext(extended(nodes("", tt.replace, states, nil)),
				f.pod(0, onNode("node-1")), f.pod(1, onNode("node-1")), f.pod(2, onNode(tt.node)))
			if diff := cmp.Diff(tt.want, f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if tt.requeue != 0 && plan.RequeueAfter != tt.requeue {
				t.Errorf("requeue after %s, want %s", plan.RequeueAfter, tt.requeue)
			}
		})
	}
}

func TestVolumesRecreateDeletesOnlyClaimsOfGoneOrFencedNodes(t *testing.T) {
	f := steady(testgen.Replicas(2), testgen.ClaimTemplates("data", "logs"))
	claims := []*corev1.PersistentVolumeClaim{
		testgen.Claim(f.set, "data", 0), testgen.Claim(f.set, "logs", 0),
		testgen.Claim(f.set, "data", 1), testgen.Claim(f.set, "logs", 1),
	}
	states := map[string]planner.NodeState{
		"down":   {Since: now.Add(-time.Minute)},
		"fenced": {Since: now.Add(-time.Minute), OutOfService: true},
	}
	tests := []struct {
		name    string
		volumes v1alpha1.NodeFailureVolumes
		node    string
		pod1    []testgen.PodOption // nil: web-1 is gone
		want    []string
	}{
		{name: "the lost ordinal's claim on a fenced node is deleted once its pod is gone, and nothing else runs",
			volumes: v1alpha1.RecreateNodeFailureVolumes, node: "fenced", want: []string{"node failure: DeleteClaim data-web-1"}},
		{name: "so is one on a deleted node", volumes: v1alpha1.RecreateNodeFailureVolumes, node: "gone",
			want: []string{"node failure: DeleteClaim data-web-1"}},
		{name: "a recreated pod its claim holds unscheduled keeps running while its claim is deleted",
			volumes: v1alpha1.RecreateNodeFailureVolumes, node: "fenced", pod1: []testgen.PodOption{testgen.Pending()},
			want: []string{"node failure: DeleteClaim data-web-1"}},
		{name: "while the old pod is still terminating, the claim waits for the pod garbage collector",
			volumes: v1alpha1.RecreateNodeFailureVolumes, node: "fenced", pod1: []testgen.PodOption{onNode("fenced"), testgen.Terminating(now)}},
		{name: "a claim on a node that is only NotReady is kept",
			volumes: v1alpha1.RecreateNodeFailureVolumes, node: "down", want: []string{"replicas: CreatePod web-1 at current"}},
		{name: "under Keep no claim is ever deleted", volumes: v1alpha1.KeepNodeFailureVolumes, node: "gone",
			want: []string{"replicas: CreatePod web-1 at current"}},
		{name: "nor with the policy unset", node: "fenced", want: []string{"replicas: CreatePod web-1 at current"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods := []*corev1.Pod{f.pod(0, onNode("node-1"))}
			if tt.pod1 != nil {
				pods = append(pods, f.pod(1, tt.pod1...))
			}
			in := f.input(pods, claims...)
			in.Extended = extended(nodes(tt.volumes, nil, states, map[string]string{"data-web-0": "node-1", "data-web-1": tt.node}))
			plan := planner.Compute(in)
			if diff := cmp.Diff(tt.want, f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("the deletion says what data is given up, in blockedBy and its event", func(t *testing.T) {
		in := f.input([]*corev1.Pod{f.pod(0, onNode("node-1"))}, claims...)
		in.Extended = extended(nodes(v1alpha1.RecreateNodeFailureVolumes, nil, states, map[string]string{"data-web-1": "fenced"}))
		plan := planner.Compute(in)
		if diff := cmp.Diff([]string{"web-1 ClaimRecreatedFromLostNode"}, blockedReasons(plan)); diff != "" {
			t.Fatalf("blockedBy (-want +got):\n%s", diff)
		}
		a := plan.Steps[0].Actions[0]
		for _, want := range []string{"data-web-1", "node fenced, which is fenced", "given up"} {
			if !strings.Contains(a.EventMessage, want) {
				t.Errorf("event %q does not say %q", a.EventMessage, want)
			}
		}
	})
}

func TestAnAppsV1SetIsNeverJudgedForNodeFailure(t *testing.T) {
	f := steady(testgen.Replicas(1))
	in := f.input([]*corev1.Pod{f.pod(0, onNode("gone"))})
	plan := planner.Compute(in)
	if len(plan.Steps) != 0 || len(plan.Waits) != 0 || len(plan.Warnings) != 0 {
		t.Errorf("an apps/v1 set's plan changed: steps %v waits %v warnings %v", f.summary(plan), plan.Waits, plan.Warnings)
	}
}

// A policy whose nodes were never read (Nodes nil) judges nothing: with
// volumes Recreate, treating unknown nodes as gone would give up data.
func TestANodeFailurePolicyWithoutNodeFactsJudgesNothing(t *testing.T) {
	f := steady(testgen.Replicas(2), testgen.ClaimTemplates("data"))
	pods := []*corev1.Pod{f.pod(0, onNode("node-1")), f.pod(1, onNode("node-2"))}
	in := f.input(pods, testgen.Claim(f.set, "data", 0), testgen.Claim(f.set, "data", 1))
	in.Extended = extended(func(e *planner.Extended) {
		e.NodeFailure = &planner.NodeFailure{Volumes: v1alpha1.RecreateNodeFailureVolumes,
			ClaimNodes: map[string]string{"data-web-0": "node-1"}}
	})
	plan := planner.Compute(in)
	for _, s := range plan.Steps {
		if s.Name == planner.StepNodeFailure {
			t.Errorf("node-failure step %v without node facts", s.Actions)
		}
	}
	if b := plan.Extended.Status.BlockedBy; len(b) != 0 {
		t.Errorf("blockedBy %v without node facts", b)
	}
}
