package setops

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// lostLocalClaim is an extended set under volumes: Recreate whose web-1
// is gone and whose claim data-web-1 is on a local volume of host h1, which
// no node carries; status is what the controller last wrote.
func lostLocalClaim(t *testing.T, status v1alpha1.StatefulSetStatus) Observed {
	t.Helper()
	set, err := testgen.Extended(testgen.StatefulSet("web", testgen.Replicas(2), testgen.ClaimTemplates("data")))
	if err != nil {
		t.Fatal(err)
	}
	set.Spec.NodeFailurePolicy = &v1alpha1.NodeFailurePolicy{Volumes: v1alpha1.RecreateNodeFailureVolumes}
	set.Status = status
	view := osts.View(set)
	rev := testgen.RevisionOf(view, 1)
	o := Observed{Set: view, Extended: set, Revisions: []*appsv1.ControllerRevision{rev}, Claims: map[string]*corev1.PersistentVolumeClaim{}}
	pod := testgen.Pod(view, 0, testgen.At(rev))
	pod.Spec.NodeName = "n0"
	o.Pods = []*corev1.Pod{pod}
	claim := testgen.Claim(view, "data", 1)
	claim.Spec.VolumeName = "pv-1"
	o.Claims[claim.Name] = claim
	o.NodeFacts = &NodeFacts{Nodes: map[string]*corev1.Node{"n0": {ObjectMeta: metav1.ObjectMeta{Name: "n0"},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}},
		Volumes: map[string]*corev1.PersistentVolume{"pv-1": {ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}, Spec: corev1.PersistentVolumeSpec{
			ClaimRef: &corev1.ObjectReference{UID: claim.UID}, NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"h1"}}}}}}}}}},
		Hosts: map[string][]*corev1.Node{"h1": {}}, LostHosts: map[string]time.Time{}, QuarantineOver: map[string]bool{}, Now: testgen.Epoch}
	return o
}

func blockedWords(r rolloutview.PlanReport) string {
	var b strings.Builder
	for _, x := range r.Extended.BlockedBy {
		b.WriteString(x.Pod + " " + x.Reason + ": " + x.Message + "\n")
	}
	return b.String()
}

// `rollout plan` says which claim volumes: Recreate would delete and why,
// once the controller's quarantine (which it does not know) is over, from
// when the controller first saw the host lost (its status); and, once the
// controller reported the quarantine over, that it would not where the
// controller may not delete claims (its condition), or that it deletes it.
func TestPlanSaysWhichClaimWouldBeDeletedWhenAndWhy(t *testing.T) {
	seen := testgen.Epoch.Add(-time.Minute)
	o := lostLocalClaim(t, v1alpha1.StatefulSetStatus{BlockedBy: []v1alpha1.BlockedPod{
		{Pod: "web-1", Reason: planner.ReasonClaimQuarantine, Since: metav1.NewTime(seen)}}})
	o.NodeFacts.lostSince(o, "data-web-1", "h1")
	report, err := PlanReport(o, testgen.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	want := "would delete claim data-web-1 because its volume pv-1 is pinned to host h1, which no node has carried since " + seen.UTC().Format(time.RFC3339) +
		", once it has been lost for the controller's quarantine"
	if words := blockedWords(report); !strings.Contains(words, want) {
		t.Errorf("blocked by:\n%s\nwant %q", words, want)
	}

	forbidden := []metav1.Condition{{Type: planner.ConditionClaimRecreation, Status: metav1.ConditionFalse, Reason: planner.ReasonClaimDeletionForbidden}}
	o = lostLocalClaim(t, v1alpha1.StatefulSetStatus{Conditions: forbidden, BlockedBy: []v1alpha1.BlockedPod{
		{Pod: "web-1", Reason: planner.ReasonClaimNotAllowed, Since: metav1.NewTime(seen)}}})
	o.NodeFacts.lostSince(o, "data-web-1", "h1")
	if report, err = PlanReport(o, testgen.Epoch); err != nil {
		t.Fatal(err)
	}
	if words := blockedWords(report); !strings.Contains(words, "would delete claim data-web-1 because") || !strings.Contains(words, "may not delete PersistentVolumeClaims") {
		t.Errorf("blocked by:\n%s", words)
	}
	for _, s := range report.Steps {
		for _, a := range s.Actions {
			if a.Kind == string(planner.DeleteClaim) {
				t.Errorf("the plan deletes %s where the controller may not", a.Object)
			}
		}
	}

	o.Extended.Status.Conditions = []metav1.Condition{{Type: planner.ConditionClaimRecreation, Status: metav1.ConditionTrue, Reason: planner.ReasonClaimRecreationApplied}}
	if report, err = PlanReport(o, testgen.Epoch); err != nil {
		t.Fatal(err)
	}
	if len(report.Steps) != 1 || len(report.Steps[0].Actions) != 1 || report.Steps[0].Actions[0].Object != "PersistentVolumeClaim/data-web-1" ||
		!strings.Contains(report.Steps[0].Actions[0].Reason, "delete claim data-web-1 because its volume pv-1 is pinned to host h1") {
		t.Errorf("steps %+v, want the delete of data-web-1 with why", report.Steps)
	}
}
