package controller

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

var podsResource = schema.GroupResource{Resource: "pods"}

func createPods(set string, ordinals ...int32) []planner.Action {
	web := testgen.StatefulSet(set)
	var out []planner.Action
	for _, o := range ordinals {
		pod := testgen.Pod(web, o)
		pod.UID, pod.ResourceVersion = "", ""
		out = append(out, planner.Action{Kind: planner.CreatePod, Ordinal: o, Pod: pod, EventReason: planner.EventSuccessfulCreate, FailEvent: planner.EventFailedCreate})
	}
	return out
}

func TestPodControlDeletesExactlyThePodThePlannerSaw(t *testing.T) {
	web := testgen.StatefulSet("web", testgen.Replicas(2))
	pod := testgen.Pod(web, 1)
	pc, client, rec, exp := newTestPodControl(pod)
	step := planner.Step{Name: planner.StepScaleDown, Actions: []planner.Action{{Kind: planner.DeletePod, Ordinal: 1, Pod: pod, EventReason: planner.EventSuccessfulDelete}}}
	if err := pc.Apply(context.Background(), web, "ns/web", []planner.Step{step}); err != nil {
		t.Fatal(err)
	}
	del := client.Actions()[0].(k8stesting.DeleteAction)
	if pre := del.GetDeleteOptions().Preconditions; pre == nil || pre.UID == nil || *pre.UID != pod.UID {
		t.Errorf("delete preconditions %+v, want the observed UID %s", del.GetDeleteOptions().Preconditions, pod.UID)
	}
	if got := exp.pending("ns/web", func(string) (*corev1.Pod, bool) { return pod, true }); got != "web-1" {
		t.Errorf("pending expectation %q, want web-1 until the cache shows the delete", got)
	}
	if ev := events(rec); len(ev) != 1 || !strings.HasPrefix(ev[0], "Normal SuccessfulDelete Delete Pod web-1") {
		t.Errorf("events %q, want one SuccessfulDelete", ev)
	}
}

// Upstream reports a delete that finds the pod gone as a successful
// delete; so does Ordinal.
func TestAPodAlreadyGoneIsNotAnError(t *testing.T) {
	web := testgen.StatefulSet("web")
	pod := testgen.Pod(web, 0)
	pc, _, rec, _ := newTestPodControl() // the pod is not there
	step := planner.Step{Name: planner.StepRollingUpdate, Actions: []planner.Action{{Kind: planner.DeletePod, Pod: pod, EventReason: planner.EventSuccessfulDelete}}}
	if err := pc.Apply(context.Background(), web, "ns/web", []planner.Step{step}); err != nil {
		t.Errorf("deleting a pod that is gone: %v", err)
	}
	if ev := events(rec); len(ev) != 1 || !strings.HasPrefix(ev[0], "Normal SuccessfulDelete Delete Pod web-0") {
		t.Errorf("events %q for a pod that was already gone, want upstream's SuccessfulDelete", ev)
	}
}

func TestAFailedCreateIsAWarningAndStopsThePlan(t *testing.T) {
	web := testgen.StatefulSet("web", testgen.Replicas(2))
	pc, client, rec, _ := newTestPodControl()
	failing(client, "create", "pods", "web-0", apierrors.NewForbidden(podsResource, "web-0", nil))
	steps := []planner.Step{{Name: planner.StepReplicas, Actions: createPods("web", 0, 1)}}
	err := pc.Apply(context.Background(), web, "ns/web", steps)
	if err == nil || !strings.Contains(err.Error(), "replicas: CreatePod web-0") {
		t.Errorf("error %v, want one naming the step and the pod", err)
	}
	if got := writes(client); len(got) != 1 {
		t.Errorf("writes %q: a sequential step went on after its first error", got)
	}
	if ev := events(rec); len(ev) != 1 || !strings.HasPrefix(ev[0], "Warning FailedCreate Create Pod web-0") {
		t.Errorf("events %q, want one FailedCreate warning", ev)
	}
}

func TestANameTakenBySomeoneElsesPodIsAWarningNotASilentStall(t *testing.T) {
	web := testgen.StatefulSet("web")
	other := testgen.StatefulSet("other")
	squatter := testgen.Pod(other, 0, testgen.Named("web-0"))
	pc, _, rec, _ := newTestPodControl(squatter)
	err := pc.Apply(context.Background(), web, "ns/web", []planner.Step{{Name: planner.StepReplicas, Actions: createPods("web", 0)}})
	if err == nil || !strings.Contains(err.Error(), "the name is taken by a pod controlled by StatefulSet other") {
		t.Errorf("error %v, want one naming the holder", err)
	}
	if ev := events(rec); len(ev) != 1 || !strings.Contains(ev[0], "the name is taken by a pod controlled by StatefulSet other") {
		t.Errorf("events %q, want a FailedCreate warning naming the holder", ev)
	}
}

func TestABurstRunsInSlowStartBatchesAndStopsAfterTheFailingBatch(t *testing.T) {
	web := testgen.StatefulSet("web", testgen.Replicas(10), testgen.Parallel())
	pc, client, _, _ := newTestPodControl()
	// Batches are 1, 2, 4, …: web-2 is in the second batch, which still
	// runs whole (web-1 too); the third batch never starts.
	failing(client, "create", "pods", "web-2", apierrors.NewInternalError(errors.New("etcd is down")))
	ords := []int32{0, 2, 1, 3, 4, 5, 6, 7, 8, 9}
	err := pc.Apply(context.Background(), web, "ns/web", []planner.Step{{Name: planner.StepReplicas, Burst: true, Batches: []int{1, 2, 4, 3}, Actions: createPods("web", ords...)}})
	if err == nil {
		t.Fatal("a burst with a failing create returned no error")
	}
	if diff := cmp.Diff([]string{"create pods", "create pods", "create pods"}, writes(client)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}

func TestAnUnknownActionIsAnError(t *testing.T) {
	pc, _, _, _ := newTestPodControl()
	err := pc.Apply(context.Background(), testgen.StatefulSet("web"), "ns/web", []planner.Step{{Name: "x", Actions: []planner.Action{{Kind: "Rename"}}}})
	if err == nil || !strings.Contains(err.Error(), `unknown action "Rename"`) {
		t.Errorf("error %v, want one naming the unknown action", err)
	}
}
