package rolloutview

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/golden"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// The plan of a set whose pods are asked to go by eviction requests says,
// per pod, who asked and what the set does: moving it (and what the move
// waits for) or declining.
func TestRenderPlanSaysWhatTheSetDoesWithItsEvictionRequests(t *testing.T) {
	now := testgen.Epoch.Add(2 * time.Minute)
	r := newRollout()
	view, ext := extendedOf(t, r.set, lastCompleted(r.oldRev.Name), lastProgress(testgen.Epoch))
	history := revs(r.oldRev, r.newRev)
	res, err := revision.Resolve(view, history)
	if err != nil {
		t.Fatal(err)
	}
	pods := r.pods()
	pods[0].Spec.NodeName, pods[1].Spec.NodeName, pods[2].Spec.NodeName = "node-a", "node-b", "node-b"
	in, obs := osts.Extended(ext), osts.Observe(ext)
	obs.Nodes = &planner.NodeFacts{Nodes: map[string]planner.NodeState{
		"node-a": {Ready: corev1.ConditionFalse, Since: testgen.Epoch}, "node-b": {Ready: corev1.ConditionTrue}}, ClaimHosts: map[string]string{}}
	for _, p := range pods[:2] {
		obs.EvictionRequests = append(obs.EvictionRequests, planner.EvictionRequest{Pod: p.Name, UID: p.UID, Requesters: []string{"ordinal.dev/node-drain"}})
	}
	plan := planner.Compute(planner.Input{Set: view, Pods: pods, Current: res.Current, Update: res.Update,
		CollisionCount: res.CollisionCount, Now: now, Extended: in, Observed: obs})
	report := NewPlanReport(view, res, history, plan)
	ExtendPlan(&report, in, obs, plan)
	var b strings.Builder
	RenderPlan(&b, report, now)
	golden.Check(t, "plan-extended-eviction-requests.txt", b.String())
	if got := report.Extended.EvictionRequests; len(got) != 2 || got[0].Outcome != string(planner.ResponseDeclined) || got[1].Outcome != string(planner.ResponseMoving) {
		t.Errorf("answers %+v, want web-0 declined (its node is not Ready) and web-1 moving", got)
	}
}
