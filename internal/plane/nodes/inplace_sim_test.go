package nodes

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParsePodSim(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ann     map[string]string
		want    podSim
		wantErr []string
	}{
		{"no annotations: defaults", nil, podSim{readyDelay: time.Second, resizeDelay: defaultResizeDelay}, nil},
		{"every annotation", map[string]string{AnnotationBehavior: BehaviorNeverReady, AnnotationReadyDelay: "4s", AnnotationResize: ResizeInfeasible,
			AnnotationResizeDelay: "250ms", AnnotationInPlaceStart: InPlaceStartFail},
			podSim{behavior: BehaviorNeverReady, readyDelay: 4 * time.Second, resize: ResizeInfeasible, resizeDelay: 250 * time.Millisecond, startFails: true}, nil},
		{"a ready delay that does not parse keeps the default", map[string]string{AnnotationReadyDelay: "soon"},
			podSim{readyDelay: time.Second, resizeDelay: defaultResizeDelay}, nil},
		{"bad in-place values are all named", map[string]string{AnnotationResize: "slow", AnnotationResizeDelay: "-1s", AnnotationInPlaceStart: "crash"}, podSim{},
			[]string{`sim.ordinal.dev/resize: "slow" is not one of deferred, infeasible`, `sim.ordinal.dev/resize-delay: "-1s"`, `sim.ordinal.dev/inplace-start: "crash" is not fail`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsePodSim(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: tc.ann}}, time.Second)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(podSim{})); diff != "" {
					t.Errorf("podSim (-want +got):\n%s", diff)
				}
				return
			}
			for _, w := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v does not say %q", err, w)
				}
			}
		})
	}
}

func TestImageIDsDifferByReferenceAndContainerIDsByRestart(t *testing.T) {
	for image, want := range map[string]string{
		"registry.k8s.io/nginx-slim:0.8": "registry.k8s.io/nginx-slim@sha256:",
		"localhost:5000/db":              "localhost:5000/db@sha256:",
		"db@sha256:abc":                  "db@sha256:abc",
	} {
		if got := ImageID(image); !strings.HasPrefix(got, want) {
			t.Errorf("ImageID(%q) = %q, want it to start with %q", image, got, want)
		}
	}
	if ImageID("db:1") == ImageID("db:2") {
		t.Error("two tags have the same image ID")
	}
	if first := ContainerID("u", "db", 0); first == ContainerID("u", "db", 1) || first != ContainerID("u", "db", 0) {
		t.Error("container IDs must differ by restart and be stable otherwise")
	}
}
