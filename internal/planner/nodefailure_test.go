package planner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// onNode puts a pod on node.
func onNode(node string) testgen.PodOption {
	return func(p *corev1.Pod) { p.Spec.NodeName = node }
}

// quarantine is the plans' quarantine.
const quarantine = time.Minute

// nodeFacts is what a plan knows of nodes and hosts, and may do.
type nodeFacts struct {
	states     map[string]planner.NodeState
	claimHosts map[string]string
	hosts      map[string]planner.HostState
	permission planner.Permission
}

// nodes gives the plan a node-failure policy and what it knows of nodes;
// node-1 and node-2 are Ready unless facts say otherwise, and claim
// deletion is allowed unless they say otherwise.
func nodes(volumes v1alpha1.NodeFailureVolumes, replaceAfter *time.Duration, facts nodeFacts) func(*planner.Extended) {
	return func(e *planner.Extended) {
		nf := &planner.NodeFailure{Volumes: volumes}
		nodes := &planner.NodeFacts{ClaimHosts: facts.claimHosts, Hosts: facts.hosts, Quarantine: quarantine,
			ClaimDeletion: planner.PermissionAllowed, Nodes: map[string]planner.NodeState{
				"node-1": {Ready: corev1.ConditionTrue}, "node-2": {Ready: corev1.ConditionTrue}}}
		if facts.permission != "" {
			nodes.ClaimDeletion = facts.permission
		}
		if facts.permission == "unknown" {
			nodes.ClaimDeletion = ""
		}
		for n, st := range facts.states {
			nodes.Nodes[n] = st
		}
		if replaceAfter != nil {
			nf.Replace, nf.ReplaceAfter = true, *replaceAfter
		}
		e.NodeFailure = nf
		observedOf(e).Nodes = nodes
	}
}

func blockedReasons(plan planner.Plan) []string {
	var out []string
	for _, b := range plan.Extended.Status.BlockedBy {
		out = append(out, b.Pod+" "+b.Reason)
	}
	return out
}

func unknownSince(d time.Duration) planner.NodeState {
	return planner.NodeState{Ready: corev1.ConditionUnknown, Since: now.Add(-d), UID: "uid-node"}
}

func TestAPodOnALostNodeIsNamedWithTheFenceCommand(t *testing.T) {
	f := steady(testgen.Replicas(2))
	plan := f.ext(extended(nodes("", nil, nodeFacts{states: map[string]planner.NodeState{"node-3": unknownSince(time.Minute)}})),
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

// replaceAfterSeconds force-deletes a pod only when its node has stopped
// answering (Ready Unknown) for that long, counted from a known time, and
// is neither fenced nor gone (those pods are the pod garbage collector's).
func TestReplaceAfterForceDeletesOnlyPodsOfNodesThatStoppedAnsweringForThatLong(t *testing.T) {
	f := steady(testgen.Replicas(3))
	after := 30 * time.Second
	states := map[string]planner.NodeState{
		"old":      unknownSince(time.Minute),
		"recent":   unknownSince(10 * time.Second),
		"fenced":   {Ready: corev1.ConditionUnknown, Since: now.Add(-time.Minute), OutOfService: true},
		"answers":  {Ready: corev1.ConditionFalse, Since: now.Add(-time.Hour)},
		"never":    {},
		"untimed":  {Ready: corev1.ConditionUnknown},
		"readyoos": {Ready: corev1.ConditionTrue, OutOfService: true},
	}
	tests := []struct {
		name    string
		node    string
		replace *time.Duration
		want    []string
		requeue time.Duration
	}{
		{name: "a pod of a node Unknown for longer than replaceAfter is force-deleted", node: "old", replace: &after,
			want: []string{"node failure: ForceDeletePod web-2"}},
		{name: "a pod of a node Unknown for less is not, and the set is synced again when it is due", node: "recent", replace: &after,
			requeue: 20 * time.Second},
		{name: "a pod of a fenced node is left to the pod garbage collector", node: "fenced", replace: &after},
		{name: "a pod of a deleted node is left to the pod garbage collector", node: "gone", replace: &after},
		{name: "a pod of a node whose kubelet answers NotReady (Ready False) is left to it", node: "answers", replace: &after},
		{name: "a pod of a node without a Ready condition starts no clock (not the year 1)", node: "never", replace: &after},
		{name: "nor one of a node Unknown since a time not known", node: "untimed", replace: &after},
		{name: "a pod of a Ready node is never force-deleted, fenced or not", node: "readyoos", replace: new(time.Duration(0))},
		{name: "without replaceAfter no pod is force-deleted", node: "old"},
		{name: "a pod of a Ready node is never force-deleted", node: "node-2", replace: new(time.Duration(0))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := f.ext(extended(nodes("", tt.replace, nodeFacts{states: states})),
				f.pod(0, onNode("node-1")), f.pod(1, onNode("node-1")), f.pod(2, onNode(tt.node)))
			if diff := cmp.Diff(tt.want, f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if tt.requeue != 0 && plan.RequeueAfter != tt.requeue {
				t.Errorf("requeue after %s, want %s", plan.RequeueAfter, tt.requeue)
			}
			if len(tt.want) > 0 {
				if g := plan.Steps[0].Actions[0].Guard; g == nil || g.Node != tt.node || g.UID != "uid-node" {
					t.Errorf("force delete guard %+v, want node %s of uid uid-node", g, tt.node)
				}
			}
		})
	}
}

// lostHost is a host lost as loss for d.
func lostHost(loss planner.HostLoss, d time.Duration, nodes ...string) planner.HostState {
	return planner.HostState{Loss: loss, Since: now.Add(-d), Nodes: nodes}
}

func TestVolumesRecreateDeletesOnlyClaimsOfHostsLostPastTheQuarantine(t *testing.T) {
	f := steady(testgen.Replicas(2), testgen.ClaimTemplates("data", "logs"))
	claims := []*corev1.PersistentVolumeClaim{
		testgen.Claim(f.set, "data", 0), testgen.Claim(f.set, "logs", 0),
		testgen.Claim(f.set, "data", 1), testgen.Claim(f.set, "logs", 1),
	}
	hosts := map[string]planner.HostState{
		"h1":      {Nodes: []string{"node-1"}},
		"gone":    lostHost(planner.HostGone, 2*quarantine),
		"fenced":  lostHost(planner.HostFenced, 2*quarantine, "fenced-node"),
		"fresh":   lostHost(planner.HostGone, quarantine/2),
		"running": {Nodes: []string{"node-9.example"}},
	}
	tests := []struct {
		name       string
		volumes    v1alpha1.NodeFailureVolumes
		host       string
		permission planner.Permission
		pod1       []testgen.PodOption // nil: web-1 is gone
		want       []string
		blocked    []string
	}{
		{name: "the lost ordinal's claim on a fenced host is deleted once its pod is gone, and nothing else runs",
			volumes: v1alpha1.RecreateNodeFailureVolumes, host: "fenced", want: []string{"node failure: DeleteClaim data-web-1"},
			blocked: []string{"web-1 ClaimRecreatedFromLostNode"}},
		{name: "so is one on a host no node carries", volumes: v1alpha1.RecreateNodeFailureVolumes, host: "gone",
			want: []string{"node failure: DeleteClaim data-web-1"}, blocked: []string{"web-1 ClaimRecreatedFromLostNode"}},
		{name: "a recreated pod its claim holds unscheduled keeps running while its claim is deleted",
			volumes: v1alpha1.RecreateNodeFailureVolumes, host: "fenced", pod1: []testgen.PodOption{testgen.Pending()},
			want: []string{"node failure: DeleteClaim data-web-1"}, blocked: []string{"web-1 Pending", "web-1 ClaimRecreatedFromLostNode"}},
		{name: "while the old pod is still terminating, the claim waits for the pod garbage collector",
			volumes: v1alpha1.RecreateNodeFailureVolumes, host: "fenced", pod1: []testgen.PodOption{onNode("fenced-node"), testgen.Terminating(now)},
			blocked: []string{"web-1 NodeLost"}},
		{name: "a host lost for less than the quarantine keeps its claim, and says when it would go",
			volumes: v1alpha1.RecreateNodeFailureVolumes, host: "fresh", want: []string{"replicas: CreatePod web-1 at current"},
			blocked: []string{"web-1 ClaimRecreationPending"}},
		{name: "where the controller may not delete claims, none is, and it says so",
			volumes: v1alpha1.RecreateNodeFailureVolumes, host: "gone", permission: planner.PermissionDenied,
			want: []string{"replicas: CreatePod web-1 at current"}, blocked: []string{"web-1 ClaimDeletionNotAllowed"}},
		{name: "nor while it does not know whether it may",
			volumes: v1alpha1.RecreateNodeFailureVolumes, host: "gone", permission: "unknown",
			want: []string{"replicas: CreatePod web-1 at current"}, blocked: []string{"web-1 ClaimDeletionNotAllowed"}},
		{name: "a claim on a host a live node carries, whatever that node's name, is kept",
			volumes: v1alpha1.RecreateNodeFailureVolumes, host: "running", want: []string{"replicas: CreatePod web-1 at current"}},
		{name: "a claim on a host the controller could not judge is kept",
			volumes: v1alpha1.RecreateNodeFailureVolumes, host: "unread", want: []string{"replicas: CreatePod web-1 at current"}},
		{name: "under Keep no claim is ever deleted", volumes: v1alpha1.KeepNodeFailureVolumes, host: "gone",
			want: []string{"replicas: CreatePod web-1 at current"}},
		{name: "nor with the policy unset", host: "fenced", want: []string{"replicas: CreatePod web-1 at current"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods := []*corev1.Pod{f.pod(0, onNode("node-1"))}
			if tt.pod1 != nil {
				pods = append(pods, f.pod(1, tt.pod1...))
			}
			in := f.input(pods, claims...)
			in.Extended = extended(nodes(tt.volumes, nil, nodeFacts{claimHosts: map[string]string{"data-web-0": "h1", "data-web-1": tt.host},
				hosts: hosts, permission: tt.permission}))
			plan := compute(in)
			if diff := cmp.Diff(tt.want, f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.blocked, blockedReasons(plan)); diff != "" {
				t.Errorf("blockedBy (-want +got):\n%s", diff)
			}
		})
	}
}

// What would happen, and why, is in blockedBy before it happens; the
// deletion names what data is given up, in blockedBy and its event, and
// carries the host to list live.
func TestAClaimDeletionSaysWhatAndWhyBeforeAndWhenItHappens(t *testing.T) {
	f := steady(testgen.Replicas(2), testgen.ClaimTemplates("data"))
	claim := testgen.Claim(f.set, "data", 1)
	claim.Spec.VolumeName = "pv-1"
	plan := func(hs planner.HostState, permission planner.Permission) planner.Plan {
		in := f.input([]*corev1.Pod{f.pod(0, onNode("node-1"))}, testgen.Claim(f.set, "data", 0), claim)
		in.Extended = extended(nodes(v1alpha1.RecreateNodeFailureVolumes, nil, nodeFacts{claimHosts: map[string]string{"data-web-1": "h1"},
			hosts: map[string]planner.HostState{"h1": hs}, permission: permission}))
		return compute(in)
	}
	t.Run("during the quarantine", func(t *testing.T) {
		p := plan(lostHost(planner.HostFenced, 20*time.Second, "n1.example"), "")
		msg := p.Extended.Status.BlockedBy[0].Message
		at := now.Add(quarantine - 20*time.Second).UTC().Format(time.RFC3339)
		for _, want := range []string{"would delete claim data-web-1 at " + at + " because its volume pv-1 is pinned to host h1, whose node n1.example has been NotReady and fenced", "quarantine 1m0s"} {
			if !strings.Contains(msg, want) {
				t.Errorf("blockedBy message %q does not say %q", msg, want)
			}
		}
		if p.RequeueAfter != quarantine-20*time.Second {
			t.Errorf("requeue after %s, want the quarantine's end", p.RequeueAfter)
		}
	})
	t.Run("where the controller may not", func(t *testing.T) {
		msg := plan(lostHost(planner.HostGone, time.Hour), planner.PermissionDenied).Extended.Status.BlockedBy[0].Message
		for _, want := range []string{"would delete claim data-web-1 because its volume pv-1 is pinned to host h1, which no node has carried since",
			"may not delete PersistentVolumeClaims in namespace " + f.set.Namespace, "ClusterRole " + planner.ClaimDeleterRole, "no claim is deleted"} {
			if !strings.Contains(msg, want) {
				t.Errorf("blockedBy message %q does not say %q", msg, want)
			}
		}
	})
	t.Run("in a plan that does not know the quarantine, on the controller's word", func(t *testing.T) {
		unknown := func(over bool) planner.Plan {
			in := f.input([]*corev1.Pod{f.pod(0, onNode("node-1"))}, testgen.Claim(f.set, "data", 0), claim)
			hs := lostHost(planner.HostGone, time.Hour)
			hs.QuarantineOver = over
			in.Extended = extended(nodes(v1alpha1.RecreateNodeFailureVolumes, nil, nodeFacts{claimHosts: map[string]string{"data-web-1": "h1"},
				hosts: map[string]planner.HostState{"h1": hs}}))
			observedOf(in.Extended).Nodes.Quarantine = 0
			return compute(in)
		}
		p := unknown(false)
		if f.summary(p)[0] != "replicas: CreatePod web-1 at current" || !strings.Contains(p.Extended.Status.BlockedBy[0].Message, "would delete claim data-web-1 because its volume pv-1 is pinned to host h1, which no node has carried since") ||
			!strings.Contains(p.Extended.Status.BlockedBy[0].Message, "once it has been lost for the controller's quarantine") {
			t.Errorf("steps %v, blockedBy %+v", f.summary(p), p.Extended.Status.BlockedBy)
		}
		if p := unknown(true); len(p.Steps) != 1 || p.Steps[0].Actions[0].Kind != planner.DeleteClaim {
			t.Errorf("steps %v once the controller reported the quarantine over", f.summary(p))
		}
	})
	t.Run("when it happens", func(t *testing.T) {
		p := plan(lostHost(planner.HostFenced, time.Hour, "n1.example"), "")
		a := p.Steps[0].Actions[0]
		for _, want := range []string{"data-web-1", "host h1, whose node n1.example has been NotReady and fenced", "given up"} {
			if !strings.Contains(a.EventMessage, want) {
				t.Errorf("event %q does not say %q", a.EventMessage, want)
			}
		}
		if !strings.Contains(a.Reason, "delete claim data-web-1 because its volume pv-1 is pinned to host h1") {
			t.Errorf("reason %q does not say which claim and why", a.Reason)
		}
		if a.Guard == nil || a.Guard.Host != "h1" {
			t.Errorf("guard %+v, want host h1", a.Guard)
		}
	})
}

// A set under volumes: Recreate says in a condition whether the policy is
// applied; a set under Keep has no such condition.
func TestTheClaimRecreationConditionSaysWhetherThePolicyIsApplied(t *testing.T) {
	f := steady(testgen.Replicas(1), testgen.ClaimTemplates("data"))
	for _, tt := range []struct {
		name       string
		volumes    v1alpha1.NodeFailureVolumes
		permission planner.Permission
		noNodes    bool
		want       metav1.ConditionStatus
		reason     string
	}{
		{name: "applied where the controller may delete claims", volumes: v1alpha1.RecreateNodeFailureVolumes, want: metav1.ConditionTrue, reason: planner.ReasonClaimRecreationApplied},
		{name: "not where it may not", volumes: v1alpha1.RecreateNodeFailureVolumes, permission: planner.PermissionDenied, want: metav1.ConditionFalse, reason: planner.ReasonClaimDeletionForbidden},
		{name: "unknown while it does not know", volumes: v1alpha1.RecreateNodeFailureVolumes, permission: "unknown", want: metav1.ConditionUnknown, reason: planner.ReasonClaimDeletionUnknown},
		{name: "not by a controller that reads no nodes", volumes: v1alpha1.RecreateNodeFailureVolumes, noNodes: true, want: metav1.ConditionFalse, reason: planner.ReasonNodesNotRead},
		{name: "absent under Keep", volumes: v1alpha1.KeepNodeFailureVolumes},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := extended(nodes(tt.volumes, nil, nodeFacts{permission: tt.permission}))
			if tt.noNodes {
				observedOf(e).Nodes.Nodes = nil
			}
			plan := f.ext(e, f.pod(0, onNode("node-1")))
			c := meta.FindStatusCondition(plan.Extended.Status.Conditions, planner.ConditionClaimRecreation)
			switch {
			case tt.want == "" && c != nil:
				t.Errorf("condition %+v under Keep", c)
			case tt.want != "" && (c == nil || c.Status != tt.want || c.Reason != tt.reason):
				t.Errorf("condition %+v, want %s %s", c, tt.want, tt.reason)
			}
		})
	}
}

func TestAnAppsV1SetIsNeverJudgedForNodeFailure(t *testing.T) {
	f := steady(testgen.Replicas(1))
	in := f.input([]*corev1.Pod{f.pod(0, onNode("gone"))})
	plan := compute(in)
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
		e.NodeFailure = &planner.NodeFailure{Volumes: v1alpha1.RecreateNodeFailureVolumes}
		observedOf(e).Nodes = &planner.NodeFacts{ClaimDeletion: planner.PermissionAllowed,
			ClaimHosts: map[string]string{"data-web-0": "node-1"}, Hosts: map[string]planner.HostState{"node-1": lostHost(planner.HostGone, time.Hour)}}
	})
	plan := compute(in)
	for _, s := range plan.Steps {
		if s.Name == planner.StepNodeFailure {
			t.Errorf("node-failure step %v without node facts", s.Actions)
		}
	}
	if b := plan.Extended.Status.BlockedBy; len(b) != 0 {
		t.Errorf("blockedBy %v without node facts", b)
	}
}
