package dashboard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/setops"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// extendedPod is web's pod at ordinal, controlled by the extended set of
// that name.
func extendedPod(set string, ordinal int32, opts ...testgen.PodOption) *corev1.Pod {
	pod := testgen.Pod(testgen.StatefulSet(set, testgen.Replicas(3)), ordinal, opts...)
	pod.OwnerReferences = []metav1.OwnerReference{testgen.ControllerRef(v1alpha1.SchemeGroupVersion.String(), v1alpha1.Kind.Kind, set, types.UID("uid-"+set))}
	return pod
}

func TestDeletingAPodOfAnExtendedSetLabelsOnlyThatPod(t *testing.T) {
	appsPod := testgen.Pod(testgen.StatefulSet("other", testgen.Replicas(3)), 0)
	appsPod.Name = "web-4" // a pod with the name of one of web's, controlled by an apps/v1 set
	api := fake.NewClientset(extendedPod("web", 0), extendedPod("web", 1), extendedPod("web", 2),
		extendedPod("web", 3, testgen.Terminating(testgen.Epoch)), appsPod)
	k := &ExtendedStatefulSets{client: api}
	ctx := context.Background()
	tests := []struct {
		name    string
		ordinal int32
		message string
		code    int // the status the page gets for the error
	}{
		{"a pod of the set is labelled", 1, "pod/web-1 labelled apps.ordinal.dev/delete-requested=true: the controller replaces it within maxUnavailable", http.StatusOK},
		{"an ordinal without a pod is not found", 7, "", http.StatusNotFound},
		{"a terminating pod is refused", 3, "", http.StatusBadRequest},
		{"another controller's pod is refused", 4, "", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := k.DeletePod(ctx, "default", "web", tt.ordinal)
			code := http.StatusOK
			if err != nil {
				rec := httptest.NewRecorder()
				writeError(rec, err)
				code = rec.Code
			}
			if msg != tt.message || code != tt.code {
				t.Errorf("DeletePod(%d) = %q, %v (status %d); want %q, status %d", tt.ordinal, msg, err, code, tt.message, tt.code)
			}
		})
	}
	labelled := map[string]string{}
	for _, name := range []string{"web-0", "web-1", "web-2", "web-3", "web-4"} {
		pod, err := api.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		labelled[name] = pod.Labels[v1alpha1.DeleteRequestedLabel]
		if pod.Labels["app"] != "web" && pod.Labels["app"] != "other" {
			t.Errorf("%s lost its other labels: %v", name, pod.Labels)
		}
	}
	want := map[string]string{"web-0": "", "web-1": "true", "web-2": "", "web-3": "", "web-4": ""}
	if diff := cmp.Diff(want, labelled); diff != "" {
		t.Errorf("delete-requested labels (-want +got):\n%s", diff)
	}
}

func TestAPodReplacedWhileBeingLabelledIsLeftAlone(t *testing.T) {
	api := fake.NewClientset(extendedPod("web", 0))
	// As the API server answers a patch whose metadata.uid is not the pod's.
	api.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Pod").GroupKind(), "web-0",
			field.ErrorList{field.Invalid(field.NewPath("metadata", "uid"), "uid-web-0", "field is immutable")})
	})
	_, err := (&ExtendedStatefulSets{client: api}).DeletePod(context.Background(), "default", "web", 0)
	if err == nil || !strings.Contains(err.Error(), "pod default/web-0 was replaced while it was being labelled, so it was left alone") {
		t.Errorf("error %v", err)
	}
}

func TestTheDeleteRequestPatchNamesThePodsUID(t *testing.T) {
	got := string(deleteRequestPatch("uid-web-1"))
	want := `{"metadata":{"labels":{"apps.ordinal.dev/delete-requested":"true"},"uid":"uid-web-1"}}`
	if got != want {
		t.Errorf("patch %s, want %s", got, want)
	}
}

func TestAnExtendedSetsReservedOrdinalsAreThoseWithinItsPods(t *testing.T) {
	tests := []struct {
		name     string
		replicas int32
		start    int32
		reserve  []intstr.IntOrString
		want     []int32
	}{
		{"no reservations", 3, 0, nil, nil},
		{"one reserved ordinal inside the pods", 3, 0, []intstr.IntOrString{intstr.FromInt32(1)}, []int32{1}},
		{"a range, and one above the last pod", 3, 0, []intstr.IntOrString{intstr.FromString("1-2"), intstr.FromInt32(9)}, []int32{1, 2}},
		{"reservations below the start ordinal are not cells", 2, 5, []intstr.IntOrString{intstr.FromInt32(2), intstr.FromInt32(6)}, []int32{6}},
		{"an entry that does not parse is skipped", 3, 0, []intstr.IntOrString{intstr.FromString("x"), intstr.FromInt32(0)}, []int32{0}},
		{"a huge range is cut at the cell limit", 2, 0, []intstr.IntOrString{intstr.FromString("1-2000000000")}, ordinals(1, maxReservedCells)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := testgen.Extended(testgen.StatefulSet("web", testgen.Replicas(tt.replicas), testgen.Start(tt.start)))
			if err != nil {
				t.Fatal(err)
			}
			set.Spec.ReserveOrdinals = tt.reserve
			if diff := cmp.Diff(tt.want, (&ExtendedStatefulSets{}).Reserved(set)); diff != "" {
				t.Errorf("reserved (-want +got):\n%s", diff)
			}
		})
	}
}

// ordinals is n ordinals from low.
func ordinals(low int32, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = low + int32(i)
	}
	return out
}

// TestAReservedOrdinalOfAnExtendedSetIsAReservedCell: the set's pods skip
// ordinal 1, which its grid shows as reserved rather than missing.
func TestAReservedOrdinalOfAnExtendedSetIsAReservedCell(t *testing.T) {
	set, pods := extendedWeb(t, false)
	set.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromInt32(1)}
	pods[1] = extendedPod("web", 2, testgen.Revision(pods[1].Labels[appsv1.StatefulSetRevisionLabel]))
	k := &ExtendedStatefulSets{}
	view, _ := k.View(set)
	s := snapshot(observed{kind: k, obj: set, Observed: setops.Observed{Set: view, Extended: set, Pods: pods}})
	got := map[int32]string{}
	for _, c := range s.Cells {
		got[c.Ordinal] = c.State
	}
	if diff := cmp.Diff(map[int32]string{0: "Ready", 1: StateReserved, 2: "Ready"}, got); diff != "" {
		t.Errorf("cell states (-want +got):\n%s", diff)
	}
	if !strings.Contains(s.Cells[1].Pod, "web-1") {
		t.Errorf("reserved cell names %q", s.Cells[1].Pod)
	}
	if sum := summarize(k.Name(), s); sum.Updated != 2 || sum.Health != HealthComplete {
		t.Errorf("summary says %d/2 updated, %s; want 2/2, complete", sum.Updated, sum.Health)
	}
}
