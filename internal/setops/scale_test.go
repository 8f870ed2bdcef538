package setops

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// extendedSet is an extended set "web" at resourceVersion 42 with
// replicas n, the given reservations and a running pod at each of its
// ordinals (terminating at the ordinals in leaving).
func extendedSet(t *testing.T, n int32, reserve []intstr.IntOrString, leaving ...int32) (*v1alpha1.StatefulSet, []*corev1.Pod) {
	t.Helper()
	set, err := testgen.Extended(testgen.StatefulSet("web", testgen.Replicas(n)))
	if err != nil {
		t.Fatal(err)
	}
	set.ResourceVersion, set.Generation, set.Spec.ReserveOrdinals = "42", 7, reserve
	view := osts.View(set)
	var pods []*corev1.Pod
	for _, ord := range planner.SetOrdinals(0, n, osts.Extended(set).Reserved) {
		var opts []testgen.PodOption
		for _, l := range leaving {
			if l == ord {
				opts = append(opts, testgen.Terminating(testgen.Epoch))
			}
		}
		pods = append(pods, testgen.Pod(view, ord, opts...))
	}
	return set, pods
}

func ints(v ...int) []intstr.IntOrString {
	out := make([]intstr.IntOrString, len(v))
	for i, n := range v {
		out[i] = intstr.FromInt(n)
	}
	return out
}

func TestNewRemovalReservesTheOrdinalsAndLowersReplicasInOnePatch(t *testing.T) {
	rv := PatchOp{Op: "test", Path: "/metadata/generation", Value: int64(7)}
	tests := []struct {
		name     string
		replicas int32
		reserve  []intstr.IntOrString
		remove   []int32
		want     Removal
	}{
		{"a set without reservations gets the list", 6, nil, []int32{3, 5}, Removal{
			Pods: []string{"web-3", "web-5"}, Ordinals: []int32{3, 5}, Replicas: 6, NewReplicas: 4,
			Patch: []PatchOp{rv, {"add", "/spec/reserveOrdinals", []int32{3, 5}}, {"add", "/spec/replicas", int32(4)}},
		}},
		{"a set with reservations gets them appended", 3, []intstr.IntOrString{intstr.FromString("1-2")}, []int32{4}, Removal{
			Pods: []string{"web-4"}, Ordinals: []int32{4}, Replicas: 3, NewReplicas: 2,
			Patch: []PatchOp{rv, {"add", "/spec/reserveOrdinals/-", int32(4)}, {"add", "/spec/replicas", int32(2)}},
		}},
		{"the last pod may go", 1, nil, []int32{0}, Removal{
			Pods: []string{"web-0"}, Ordinals: []int32{0}, Replicas: 1, NewReplicas: 0,
			Patch: []PatchOp{rv, {"add", "/spec/reserveOrdinals", []int32{0}}, {"add", "/spec/replicas", int32(0)}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, pods := extendedSet(t, tt.replicas, tt.reserve)
			got, err := NewRemoval(set, pods, tt.remove)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NewRemoval (-want +got):\n%s", diff)
			}
		})
	}
}

// Applying the patch, as the API server does, leaves the set with exactly
// the other pods' ordinals.
func TestARemovalsPatchLeavesExactlyTheOtherOrdinals(t *testing.T) {
	tests := []struct {
		name     string
		replicas int32
		reserve  []intstr.IntOrString
		remove   []int32
		want     []int32
	}{
		{"two from the middle", 6, nil, []int32{3, 5}, []int32{0, 1, 2, 4}},
		{"the lowest", 3, nil, []int32{0}, []int32{1, 2}},
		{"beside a reserved range", 4, []intstr.IntOrString{intstr.FromString("1-2")}, []int32{4}, []int32{0, 3, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, pods := extendedSet(t, tt.replicas, tt.reserve)
			r, err := NewRemoval(set, pods, tt.remove)
			if err != nil {
				t.Fatal(err)
			}
			obs, err := r.Preview(Observed{Extended: set, Pods: pods})
			if err != nil {
				t.Fatal(err)
			}
			got := planner.SetOrdinals(0, planner.Replicas(obs.Set), osts.Extended(obs.Extended).Reserved)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ordinals after the patch (-want +got):\n%s", diff)
			}
			if set.Spec.Replicas == obs.Extended.Spec.Replicas || len(set.Spec.ReserveOrdinals) == len(obs.Extended.Spec.ReserveOrdinals) {
				t.Error("Preview changed the set it was given, or did not change the copy")
			}
		})
	}
}

func TestChoosingAnOrdinalWithoutARunningPodIsRefused(t *testing.T) {
	tests := []struct {
		name    string
		reserve []intstr.IntOrString
		leaving []int32
		ords    []int32
		want    []string
	}{
		{"an ordinal above the set", nil, nil, []int32{7}, []string{"ordinal 7 holds no pod of osts/web (its pods: web-0, web-1, web-2)"}},
		{"a reserved ordinal", ints(1), nil, []int32{1}, []string{"ordinal 1 is already reserved (spec.reserveOrdinals [1])"}},
		{"a terminating pod", nil, []int32{2}, []int32{2}, []string{"web-2 is already terminating"}},
		{"every bad ordinal is named", ints(1), nil, []int32{1, 2, 9}, []string{
			"ordinal 1 is already reserved (spec.reserveOrdinals [1])",
			"ordinal 9 holds no pod of osts/web (its pods: web-0, web-2, web-3)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, pods := extendedSet(t, 3, tt.reserve, tt.leaving...)
			_, rerr := NewRemoval(set, pods, tt.ords)
			_, perr := NewReplacement(set, pods, tt.ords)
			for _, err := range []error{rerr, perr} {
				if err == nil {
					t.Fatal("accepted")
				}
				if diff := cmp.Diff(tt.want, strings.Split(err.Error(), "\n")); diff != "" {
					t.Errorf("error lines (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestAReplacementLabelsThePodItReadAndNoOther(t *testing.T) {
	set, pods := extendedSet(t, 5, nil)
	r, err := NewReplacement(set, pods, []int32{1, 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{r.Pods[0].Name, r.Pods[1].Name}; !cmp.Equal(got, []string{"web-1", "web-4"}) {
		t.Errorf("pods %v, want web-1 and web-4", got)
	}
	want := []PatchOp{
		{"test", "/metadata/uid", "uid-web-1"},
		{"add", "/metadata/labels/apps.ordinal.dev~1delete-requested", "true"},
	}
	if diff := cmp.Diff(want, LabelPatch(r.Pods[0])); diff != "" {
		t.Errorf("LabelPatch (-want +got):\n%s", diff)
	}
	obs, err := r.Preview(Observed{Set: osts.View(set), Extended: set, Pods: pods})
	if err != nil {
		t.Fatal(err)
	}
	var labelled []string
	for _, p := range obs.Pods {
		if p.Labels[v1alpha1.DeleteRequestedLabel] == "true" {
			labelled = append(labelled, p.Name)
		}
	}
	if !cmp.Equal(labelled, []string{"web-1", "web-4"}) || pods[1].Labels[v1alpha1.DeleteRequestedLabel] != "" {
		t.Errorf("preview labels %v (want web-1, web-4) and must leave the pods read alone", labelled)
	}
}

// The preview's plan deletes exactly the labelled pod.
func TestAReplacementsPreviewPlansItsDelete(t *testing.T) {
	set, pods := extendedSet(t, 3, nil)
	r, err := NewReplacement(set, pods, []int32{1})
	if err != nil {
		t.Fatal(err)
	}
	view := osts.View(set)
	rev := testgen.RevisionOf(view, 1)
	for _, p := range pods {
		testgen.At(rev)(p)
	}
	obs, err := r.Preview(Observed{Set: view, Extended: set, Pods: pods, Revisions: []*appsv1.ControllerRevision{rev}})
	if err != nil {
		t.Fatal(err)
	}
	report, err := PlanReport(obs, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var deletes []string
	for _, s := range report.Steps {
		for _, a := range s.Actions {
			if a.Kind == string(planner.DeletePod) || a.Kind == rolloutview.ActionEvictPod {
				deletes = append(deletes, a.Kind+" "+a.Object)
			}
		}
	}
	// The set respects disruption budgets (the default), so the chosen
	// pod is evicted.
	if want := []string{"EvictPod Pod/web-1"}; !cmp.Equal(deletes, want) {
		t.Errorf("planned deletes %v, want %v", deletes, want)
	}
}

func TestParseOrdinals(t *testing.T) {
	tests := []struct {
		in   string
		want []int32
		err  string
	}{
		{"3,5", []int32{3, 5}, ""},
		{" 5, 3 ", []int32{3, 5}, ""},
		{"0", []int32{0}, ""},
		{"3,3", nil, "ordinal 3 is given twice"},
		{"-1", nil, `"-1" is not an ordinal: give ordinals as numbers separated by commas, like 3,5`},
		{"3-5", nil, `"3-5" is not an ordinal: give ordinals as numbers separated by commas, like 3,5`},
		{"3,", nil, `"" is not an ordinal: give ordinals as numbers separated by commas, like 3,5`},
		{"+4", nil, `"+4" is not an ordinal: give ordinals as numbers separated by commas, like 3,5`},
		{"99999999999", nil, `"99999999999" is not an ordinal: give ordinals as numbers separated by commas, like 3,5`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseOrdinals(tt.in)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.err || !cmp.Equal(got, tt.want) {
				t.Errorf("ParseOrdinals(%q) = %v, %q; want %v, %q", tt.in, got, gotErr, tt.want, tt.err)
			}
		})
	}
}

func TestAnAppsV1SetIsToldItNeedsTheExtendedKind(t *testing.T) {
	target := &Target{Set: testgen.StatefulSet("web", testgen.Replicas(3))}
	_, _, rerr := target.PlanRemoval(context.Background(), []int32{1})
	_, _, perr := target.PlanReplacement(context.Background(), []int32{1})
	for _, err := range []error{rerr, perr} {
		if !errors.Is(err, ErrNeedsExtended) || !strings.Contains(err.Error(), "`ordinal migrate sts/web` turns it into statefulset.apps.ordinal.dev (apps.ordinal.dev/v1alpha1)") {
			t.Errorf("apps/v1 set: %v, want ErrNeedsExtended naming ordinal migrate", err)
		}
	}
}

// The removal applies to the spec as read: a status the controller wrote
// in between (a new resourceVersion, new counts) does not refuse it, as
// it did when the patch tested the resourceVersion; a changed spec (a
// new generation) does.
func TestARemovalGoesThroughAStatusWriteButNotASpecChange(t *testing.T) {
	set, pods := extendedSet(t, 3, nil)
	r, err := NewRemoval(set, pods, []int32{1})
	if err != nil {
		t.Fatal(err)
	}
	statusWritten := set.DeepCopy()
	statusWritten.ResourceVersion, statusWritten.Status.ReadyReplicas = "43", 2
	if got, err := applyPatch(statusWritten, r.Patch); err != nil || *got.Spec.Replicas != 2 {
		t.Errorf("after a status write: %v, want the removal applied", err)
	}
	specChanged := set.DeepCopy()
	specChanged.ResourceVersion, specChanged.Generation, specChanged.Spec.Replicas = "44", 8, ptr.To[int32](5)
	if _, err := applyPatch(specChanged, r.Patch); err == nil {
		t.Error("after a spec change the removal applied; want its test to fail")
	}
}
