package controller

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// unitHarness applies plans through apiPodControl against a fake API and
// collects the events it records.
type unitHarness struct {
	t        *testing.T
	client   *fake.Clientset
	recorder *record.FakeRecorder
	pc       *apiPodControl
}

func newUnitHarness(t *testing.T, objects ...runtime.Object) *unitHarness {
	client := fake.NewClientset(objects...)
	rec := record.NewFakeRecorder(100)
	return &unitHarness{t: t, client: client, recorder: rec,
		pc: &apiPodControl{client: client, recorder: rec, exp: newExpectations(&memories{}, time.Now)}}
}

// failCreates makes creates of resource named name fail with err.
func (h *unitHarness) failCreates(resource, name string, err error) {
	h.client.PrependReactor("create", resource, func(a clienttesting.Action) (bool, runtime.Object, error) {
		obj := a.(clienttesting.CreateAction).GetObject().(metav1.Object)
		return obj.GetName() == name, nil, err
	})
}

func (h *unitHarness) apply(set *appsv1.StatefulSet, plan planner.Plan) error {
	return h.pc.Apply(context.Background(), set, set.Namespace+"/"+set.Name, plan.Steps)
}

// events returns the recorded events, sorted, as "Type Reason Message".
func (h *unitHarness) events() []string {
	var out []string
	for {
		select {
		case e := <-h.recorder.Events:
			out = append(out, e)
		default:
			sort.Strings(out)
			return out
		}
	}
}

func (h *unitHarness) podNames() []string {
	pods, err := h.client.CoreV1().Pods(testgen.Namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	var names []string
	for _, p := range pods.Items {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

func planFor(set *appsv1.StatefulSet, pods []*corev1.Pod, claims ...*corev1.PersistentVolumeClaim) planner.Plan {
	rev := testgen.RevisionOf(set, 1)
	return planner.Compute(planner.Input{Set: set, Pods: pods, Claims: testgen.Claims(claims...), Current: rev, Update: rev, Now: testgen.Epoch})
}

var errQuota = apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, "www-web-2", errors.New("exceeded quota"))

func TestAParallelSetStopsAfterTheBatchWhoseClaimFails(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(4), testgen.Parallel(), testgen.ClaimTemplates("www"))
	h := newUnitHarness(t)
	h.failCreates("persistentvolumeclaims", "www-web-2", errQuota)
	err := h.apply(set, planFor(set, nil))
	if err == nil {
		t.Fatal("want the sync to fail with the claim's error")
	}
	// Batches of 1, 2, 1 pods: web-0; web-1 and web-2 (fails); web-3 never.
	if diff := cmp.Diff([]string{"web-0", "web-1"}, h.podNames()); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	wantMsg := `failed to create PVC www-web-2: persistentvolumeclaims "www-web-2" is forbidden: exceeded quota`
	want := []string{
		"Normal SuccessfulCreate Create Claim www-web-0 Pod web-0 in StatefulSet web success",
		"Normal SuccessfulCreate Create Claim www-web-1 Pod web-1 in StatefulSet web success",
		"Normal SuccessfulCreate Create Pod web-0 in StatefulSet web successful",
		"Normal SuccessfulCreate Create Pod web-1 in StatefulSet web successful",
		`Warning FailedCreate Create Claim www-web-2 for Pod web-2 in StatefulSet web failed error: persistentvolumeclaims "www-web-2" is forbidden: exceeded quota`,
		"Warning FailedCreate Create Pod web-2 in StatefulSet web failed error: " + wantMsg,
	}
	if diff := cmp.Diff(want, h.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestAClaimBeingDeletedFailsThePodCreateWithUpstreamsEvent(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.Parallel(), testgen.ClaimTemplates("www"))
	terminating := testgen.Claim(set, "www", 0, testgen.ClaimDeleting(testgen.Epoch))
	h := newUnitHarness(t)
	err := h.apply(set, planFor(set, nil, terminating))
	if err == nil || !strings.Contains(err.Error(), "pvc www-web-0 is being deleted") {
		t.Fatalf("want the sync to fail with upstream's error, got %v", err)
	}
	if got := h.podNames(); len(got) != 0 {
		t.Errorf("pods %v were created; upstream creates none after the first batch fails", got)
	}
	want := []string{"Warning FailedCreate Create Pod web-0 in StatefulSet web failed error: pvc www-web-0 is being deleted"}
	if diff := cmp.Diff(want, h.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestADeleteThatFindsThePodGoneIsReportedAsUpstreamReportsIt(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(1))
	gone := testgen.Pod(set, 3, testgen.At(testgen.RevisionOf(set, 1)))
	h := newUnitHarness(t)
	if err := h.apply(set, planFor(set, []*corev1.Pod{testgen.Pod(set, 0, testgen.At(testgen.RevisionOf(set, 1))), gone})); err != nil {
		t.Fatal(err)
	}
	want := []string{"Normal SuccessfulDelete Delete Pod web-3 in StatefulSet web successful"}
	if diff := cmp.Diff(want, h.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestARetentionFixOfARunningPodIsOnePodUpdateEvent(t *testing.T) {
	del, retain := appsv1.DeletePersistentVolumeClaimRetentionPolicyType, appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	set := testgen.StatefulSet("web", testgen.Replicas(2), testgen.ClaimTemplates("www", "logs"), testgen.Retention(del, retain))
	rev := testgen.RevisionOf(set, 1)
	pods := []*corev1.Pod{testgen.Pod(set, 0, testgen.At(rev)), testgen.Pod(set, 1, testgen.At(rev))}
	var claims []*corev1.PersistentVolumeClaim
	var objs []runtime.Object
	for _, tmpl := range []string{"www", "logs"} {
		for ord := int32(0); ord < 2; ord++ {
			c := testgen.Claim(set, tmpl, ord)
			claims, objs = append(claims, c), append(objs, c)
		}
	}
	h := newUnitHarness(t, objs...)
	if err := h.apply(set, planFor(set, pods, claims...)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Normal SuccessfulUpdate Update Pod web-0 in StatefulSet web successful",
		"Normal SuccessfulUpdate Update Pod web-1 in StatefulSet web successful",
	}
	if diff := cmp.Diff(want, h.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestAnIdentityRepairOfALeadingZeroNameFailsAsUpstreamsDoes(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(2))
	rev := testgen.RevisionOf(set, 1)
	odd := testgen.Pod(set, 1, testgen.At(rev), testgen.Named("web-01"))
	h := newUnitHarness(t, odd)
	err := h.apply(set, planFor(set, []*corev1.Pod{testgen.Pod(set, 0, testgen.At(rev)), odd}))
	if !apierrors.IsNotFound(err) {
		t.Fatalf("want NotFound for web-1, got %v", err)
	}
	want := []string{`Warning FailedUpdate Update Pod web-1 in StatefulSet web failed error: pods "web-1" not found`}
	if diff := cmp.Diff(want, h.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestAPodWhoseVolumesDoNotMatchIsNeverWritten(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(1), testgen.ClaimTemplates("www"))
	rev := testgen.RevisionOf(set, 1)
	pod := testgen.Pod(set, 0, testgen.At(rev), testgen.NoVolumes())
	claim := testgen.Claim(set, "www", 0)
	h := newUnitHarness(t, pod, claim)
	for i := 0; i < 3; i++ {
		if err := h.apply(set, planFor(set, []*corev1.Pod{pod}, claim)); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range h.client.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" {
			t.Errorf("unexpected write %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
	if got := h.events(); len(got) != 0 {
		t.Errorf("events %v; a write that changed nothing must not be reported", got)
	}
}

// A hook's start labels the pod Pending through a patch naming its UID and
// records an event in the hook's own words.
func TestAStartedHookLabelsThePodAndSaysSo(t *testing.T) {
	old := testgen.StatefulSet("web", testgen.Replicas(1), testgen.Image("app:1"))
	set := testgen.StatefulSet("web", testgen.Replicas(1), testgen.Image("app:2"))
	cur, upd := testgen.RevisionOf(old, 1), testgen.RevisionOf(set, 2)
	pod := testgen.Pod(set, 0, testgen.At(cur), testgen.Ready(testgen.Epoch))
	h := newUnitHarness(t, pod)
	hook := &planner.Hook{Name: "preUpdate", Label: v1alpha1.PreUpdateHookLabel, Timeout: time.Minute}
	plan := planner.Compute(planner.Input{Set: set, Pods: []*corev1.Pod{pod}, Current: cur, Update: upd, Now: testgen.Epoch.Add(time.Hour),
		Extended: &planner.Extended{SelfHealing: true, OnFailure: v1alpha1.FailureReport, ProgressDeadline: time.Hour, MaxUnavailable: 1, PreUpdate: hook}})
	if err := h.apply(set, plan); err != nil {
		t.Fatal(err)
	}
	got, err := h.client.CoreV1().Pods(pod.Namespace).Get(context.Background(), pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels[v1alpha1.PreUpdateHookLabel] != v1alpha1.HookPending || got.Annotations[v1alpha1.PreUpdateHookLabel] == "" {
		t.Errorf("pod labels %v, annotations %v; want the hook Pending and its record", got.Labels, got.Annotations)
	}
	want := []string{"Normal HookStarted preUpdate hook of web-0 started (handshake: waits for apps.ordinal.dev/pre-update=Done; timeout 1m0s) before revision " + upd.Name}
	if diff := cmp.Diff(want, h.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
