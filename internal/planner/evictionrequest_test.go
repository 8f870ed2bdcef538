package planner_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// askedToGo adds an eviction request by ordinal.dev/node-drain for each
// named pod (its testgen UID), the set's controller its active responder.
func askedToGo(pods ...string) func(*planner.Extended) {
	return func(e *planner.Extended) {
		o := observedOf(e)
		for _, name := range pods {
			o.EvictionRequests = append(o.EvictionRequests, planner.EvictionRequest{
				Pod: name, UID: types.UID("uid-" + name), Requesters: []string{"ordinal.dev/node-drain"}})
		}
	}
}

// responses renders a plan's answers as "web-1 Moving: message".
func responses(plan planner.Plan) []string {
	var out []string
	for _, r := range plan.Extended.EvictionResponses {
		out = append(out, r.Pod+" "+string(r.Outcome)+": "+r.Message)
	}
	return out
}

func TestAnEvictionRequestMovesThePodInTheSetsTurn(t *testing.T) {
	three := steady(testgen.Replicas(3))
	wide := steady(testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(3))
	claims := steady(testgen.Replicas(3), testgen.ClaimTemplates("data"))
	for _, tc := range []struct {
		name      string
		f         fixture
		e         *planner.Extended
		pods      []*corev1.Pod
		steps     []string
		responses []string
	}{{
		name:      "a requested pod on a Ready node is deleted so that it starts elsewhere",
		f:         three,
		e:         extended(drained, askedToGo("web-1")),
		pods:      []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("n1")), three.pod(2, on("n1"))},
		steps:     []string{"node drain: DeletePod web-1"},
		responses: []string{"web-1 Moving: moving web-1 off n1 (eviction requested by ordinal.dev/node-drain): deleting it so that it starts on another node"},
	}, {
		name:  "two requests within maxUnavailable 1: the highest goes, the other says what it waits for",
		f:     three,
		e:     extended(drained, askedToGo("web-1", "web-2")),
		pods:  []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("n1")), three.pod(2, on("n1"))},
		steps: []string{"node drain: DeletePod web-2"},
		responses: []string{
			"web-1 Moving: moving web-1 off n1 (eviction requested by ordinal.dev/node-drain) waits: maxUnavailable 1 is used up (counting the rollout's own disruptions), so it waits until a pod becomes available",
			"web-2 Moving: moving web-2 off n1 (eviction requested by ordinal.dev/node-drain): deleting it so that it starts on another node"},
	}, {
		name:      "a leader's request starts its switchover, and the response says the move waits for it",
		f:         wide,
		e:         database(drained, switchover(false), askedToGo("web-2")),
		pods:      []*corev1.Pod{wide.pod(0, follower, on("n0")), wide.pod(1, follower, on("n1")), wide.pod(2, leader, on("n1"))},
		steps:     []string{"node drain: StartHook web-2"},
		responses: []string{"web-2 Moving: moving web-2 off n1 (eviction requested by ordinal.dev/node-drain)"},
	}, {
		name:      "a request for another pod of the same name (another UID) asks nothing of this one",
		f:         three,
		e:         extended(drained, askedToGo("web-1")),
		pods:      []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("n1"), func(p *corev1.Pod) { p.UID = "uid-new" }), three.pod(2, on("n1"))},
		responses: []string{"web-1 Moved: web-1 (uid uid-web-1) is gone"},
	}, {
		name:      "a cordoned node's word wins over the request's",
		f:         three,
		e:         extended(drained, askedToGo("web-1")),
		pods:      []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("cordoned")), three.pod(2, on("n1"))},
		steps:     []string{"node drain: DeletePod web-1"},
		responses: []string{"web-1 Moving: moving web-1 off cordoned (cordoned): deleting it so that it starts on another node"},
	}, {
		name:      "a terminating pod has moved: the responder completes",
		f:         three,
		e:         extended(drained, askedToGo("web-1")),
		pods:      []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("n1"), testgen.Terminating(now)), three.pod(2, on("n1"))},
		responses: []string{"web-1 Moved: web-1 is terminating: the set creates it again where the scheduler puts it"},
	}, {
		name:      "a pod that is gone has moved",
		f:         three,
		e:         extended(drained, askedToGo("web-1")),
		pods:      []*corev1.Pod{three.pod(0, on("n0")), three.pod(2, on("n1"))},
		steps:     []string{"replicas: CreatePod web-1 at current"},
		responses: []string{"web-1 Moved: web-1 (uid uid-web-1) is gone"},
	}, {
		name:      "nodeDrainPolicy Ignore declines",
		f:         three,
		e:         extended(drained, askedToGo("web-1"), func(e *planner.Extended) { e.MoveOffDrainedNodes = false }),
		pods:      []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("n1")), three.pod(2, on("n1"))},
		responses: []string{"web-1 Declined: nodeDrainPolicy Ignore: the set does not move web-1; it is left to the next responder"},
	}, {
		name:      "a paused set declines",
		f:         three,
		e:         extended(drained, askedToGo("web-1"), func(e *planner.Extended) { e.Paused = true }),
		pods:      []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("n1")), three.pod(2, on("n1"))},
		responses: []string{"web-1 Declined: the set's rollout is paused: it does not move web-1; it is left to the next responder"},
	}, {
		name:      "a pod on a node that is not Ready is declined to the node-failure policy",
		f:         three,
		e:         extended(drained, askedToGo("web-1")),
		pods:      []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("notready")), three.pod(2, on("n1"))},
		responses: []string{"web-1 Declined: web-1's node notready is not Ready: the node-failure policy speaks for it; it is left to the next responder"},
	}, {
		name: "a pod whose claim is on a local volume is declined",
		f:    claims,
		e: extended(drained, askedToGo("web-1"), func(e *planner.Extended) {
			observedOf(e).Nodes.ClaimHosts["data-web-1"] = "n1"
		}),
		pods:      []*corev1.Pod{claims.pod(0, on("n0")), claims.pod(1, on("n1")), claims.pod(2, on("n0"))},
		responses: []string{"web-1 Declined: web-1's claim data-web-1 is on a local volume of node n1: it cannot start on another node; it is left to the next responder"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			plan := tc.f.ext(tc.e, tc.pods...)
			if diff := cmp.Diff(tc.steps, tc.f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.responses, responses(plan)); diff != "" {
				t.Errorf("responses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnEvictionRequestIsNamedInTheMovesEventAndStatus(t *testing.T) {
	f := steady(testgen.Replicas(3))
	plan := f.ext(extended(drained, askedToGo("web-2")), f.pod(0, on("n0")), f.pod(1, on("n1")), f.pod(2, on("n1")))
	const msg = "moving web-2 off n1 (eviction requested by ordinal.dev/node-drain)"
	a := plan.Steps[0].Actions[0]
	if a.EventReason != planner.EventMovingOffNode || a.EventMessage != msg || !strings.HasPrefix(a.Reason, msg) {
		t.Errorf("action %+v, want the move's event and reason", a)
	}
	var blocked []string
	for _, b := range plan.Extended.Status.BlockedBy {
		if b.Reason == planner.ReasonNodeDrain {
			blocked = append(blocked, b.Message)
		}
	}
	if diff := cmp.Diff([]string{msg}, blocked); diff != "" {
		t.Errorf("blockedBy NodeDrain (-want +got):\n%s", diff)
	}
}

func TestWithoutEvictionRequestsAPlanAnswersNone(t *testing.T) {
	f := steady(testgen.Replicas(3))
	pods := []*corev1.Pod{f.pod(0, on("n0")), f.pod(1, on("n1")), f.pod(2, on("n1"))}
	if plan := f.ext(extended(drained), pods...); plan.Extended.EvictionResponses != nil || len(plan.Steps) != 0 {
		t.Errorf("plan without requests: steps %v, responses %v", f.summary(plan), plan.Extended.EvictionResponses)
	}
}
