package planner_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/config/crd"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// The planner reads the extended kind's enums in api/v1alpha1's own
// types, and a value it does not test for plans as the field's default.
// So for every value the CRD's schema admits, these tables say what the
// planner does with it, and the planner is run to check: a value the API
// gains without an entry here fails, and so does an entry whose value
// the API dropped.
func TestEveryEnumValueTheSchemaAdmitsHasAPlannerBehaviour(t *testing.T) {
	t.Run("podUpdatePolicy", func(t *testing.T) {
		newImage := rollout(testgen.Replicas(3))
		open := gate(corev1.ConditionTrue, testgen.Epoch)
		newEnv := change([]testgen.SetOption{env("a")}, []testgen.SetOption{env("b")}, testgen.Replicas(2))
		checkEveryValue(t, []string{"spec", "updateStrategy", "rollingUpdate", "podUpdatePolicy"}, map[v1alpha1.PodUpdatePolicy]string{
			v1alpha1.PodUpdateRecreate:          "image: [rolling update: DeletePod web-2]; env: [rolling update: DeletePod web-1]",
			v1alpha1.PodUpdateInPlaceIfPossible: "image: [rolling update: PatchPodStatus web-2]; env: [rolling update: DeletePod web-1]",
			v1alpha1.PodUpdateInPlaceOnly:       "image: [rolling update: PatchPodStatus web-2]; env: [] warned InPlaceImpossible",
		}, func(v v1alpha1.PodUpdatePolicy) string {
			e := podsInPlace(v)
			byImage := newImage.ext(e, newImage.pod(0, open), newImage.pod(1, open), newImage.pod(2, open))
			byEnv := newEnv.ext(e, newEnv.pods(0, 1)...)
			out := fmt.Sprintf("image: %v; env: %v", newImage.summary(byImage), newEnv.summary(byEnv))
			if slices.Contains(warningReasons(byEnv), planner.ReasonInPlaceImpossible+" Pod/web-1") {
				out += " warned " + planner.ReasonInPlaceImpossible
			}
			return out
		})
	})
	t.Run("volumeClaimUpdateStrategy.type", func(t *testing.T) {
		grow := claimsInPlaceRollout(both(size("2Gi"), image("app:2")))
		checkEveryValue(t, []string{"spec", "volumeClaimUpdateStrategy", "type"}, map[v1alpha1.VolumeClaimUpdateStrategyType]string{
			v1alpha1.OnClaimDeleteVolumeClaimUpdateStrategyType: "[rolling update: DeletePod web-2]",
			v1alpha1.InPlaceVolumeClaimUpdateStrategyType:       "[rolling update: UpdateClaimStorage www-web-2 storage=2Gi revision=update]",
		}, func(v v1alpha1.VolumeClaimUpdateStrategyType) string {
			e := claimsInPlace(true, func(e *planner.Extended) { e.ClaimUpdate = v })
			return fmt.Sprint(grow.storageLines(grow.plan(e, grow.pods(0, 1, 2), grow.claims(nil))))
		})
	})
	t.Run("partitionMode", func(t *testing.T) {
		f := rollout(testgen.Replicas(3), testgen.Partition(1))
		checkEveryValue(t, []string{"spec", "updateStrategy", "rollingUpdate", "partitionMode"}, map[v1alpha1.PartitionMode]string{
			v1alpha1.PartitionOrdinal: "[rolling update: DeletePod web-1]",
			v1alpha1.PartitionCount:   "[rolling update: DeletePod web-0]",
		}, func(v v1alpha1.PartitionMode) string {
			e := prioritized(rule(-100, "role", "primary"))
			e.PartitionCount = v == v1alpha1.PartitionCount
			return fmt.Sprint(f.summary(f.ext(e, f.pod(0), f.pod(1, primary), f.updated(2))))
		})
	})
	t.Run("onFailure", func(t *testing.T) {
		f := rollout(testgen.Replicas(3))
		broken := f.updated(2, func(p *corev1.Pod) {
			p.Status.Conditions = nil
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}}
		})
		last := planner.ExtendedStatus{UpdateRevision: f.upd.Name, UpdatedReplicas: 1, LastProgress: now.Add(-time.Minute), LastCompletedRevision: f.cur.Name}
		checkEveryValue(t, []string{"spec", "updateStrategy", "rollingUpdate", "onFailure"}, map[v1alpha1.FailurePolicy]string{
			v1alpha1.FailureReport:   "no change",
			v1alpha1.FailurePause:    "pause",
			v1alpha1.FailureRollback: "roll back to current",
		}, func(v v1alpha1.FailurePolicy) string {
			plan := f.ext(extended(func(e *planner.Extended) { e.OnFailure, e.Last = v, last }), f.pod(0), f.pod(1), broken)
			switch h := plan.Extended.Status.Hold; {
			case h == nil:
				return "no change"
			case h.Action == v1alpha1.HoldPaused:
				return "pause"
			default:
				return "roll back to " + f.alias(h.Revision)
			}
		})
	})
}

// checkEveryValue checks, for each value the schema admits at path, that
// want has it and that plan gives what want says; and that want has no
// value the schema does not admit.
func checkEveryValue[T ~string](t *testing.T, path []string, want map[T]string, plan func(T) string) {
	t.Helper()
	field := strings.Join(path, ".")
	admitted := schemaEnum(t, path)
	for _, v := range admitted {
		w, ok := want[T(v)]
		if !ok {
			t.Errorf("%s: the schema admits %q, which this test has no planner behaviour for: decide what the planner does with it, and say so here", field, v)
			continue
		}
		if got := plan(T(v)); got != w {
			t.Errorf("%s %q plans %s, want %s", field, v, got, w)
		}
	}
	for v := range want {
		if !slices.Contains(admitted, string(v)) {
			t.Errorf("%s: %q is no longer in the schema (%v); drop its entry", field, v, admitted)
		}
	}
}

// schemaEnum is the enum the CRD's schema gives the field at path.
func schemaEnum(t *testing.T, path []string) []string {
	t.Helper()
	def, err := crd.StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	if len(def.Spec.Versions) != 1 || def.Spec.Versions[0].Schema == nil {
		t.Fatalf("the CRD has %d versions, want one with a schema", len(def.Spec.Versions))
	}
	props := def.Spec.Versions[0].Schema.OpenAPIV3Schema
	for _, name := range path {
		next, ok := props.Properties[name]
		if !ok {
			t.Fatalf("the CRD's schema has no %s", strings.Join(path, "."))
		}
		props = &next
	}
	if len(props.Enum) == 0 {
		t.Fatalf("the CRD's schema gives %s no enum", strings.Join(path, "."))
	}
	return enumStrings(t, props.Enum)
}

func enumStrings(t *testing.T, enum []apiextensionsv1.JSON) []string {
	t.Helper()
	out := make([]string, len(enum))
	for i, raw := range enum {
		if err := json.Unmarshal(raw.Raw, &out[i]); err != nil {
			t.Fatalf("enum value %s: %v", raw.Raw, err)
		}
	}
	return out
}
