package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// cpuOverride gives the nginx container of the listed ordinals a cpu
// request.
func cpuOverride(name, cpu string, ordinals ...intstr.IntOrString) v1alpha1.OrdinalOverride {
	return v1alpha1.OrdinalOverride{Name: name, Ordinals: ordinals, Template: &v1alpha1.OverrideTemplate{Spec: &v1alpha1.OverridePodSpec{
		Containers: []v1alpha1.ContainerOverride{{Name: "nginx", Resources: &corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}}
}

func withOverrides(list ...v1alpha1.OrdinalOverride) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { s.Spec.Overrides = list }
}

// cpus is each pod's cpu request.
func cpus(t *testing.T, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range listPods(t, ns) {
		out[p.Name] = p.Spec.Containers[0].Resources.Requests.Cpu().String()
	}
	return out
}

// rolledTo waits until a new update revision has rolled out.
func rolledTo(t *testing.T, ns string, before *v1alpha1.StatefulSet) *v1alpha1.StatefulSet {
	t.Helper()
	return waitExtended(t, ns, 2*time.Minute, "the change rolled out", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == before.Status.UpdateRevision {
			return fmt.Errorf("no new revision yet")
		}
		return extendedSettled(s)
	})
}

// checkRecreated checks that exactly the named pods were recreated since
// before (a new UID), and every other pod kept its UID.
func checkRecreated(t *testing.T, ns string, before map[string]types.UID, recreated ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, n := range recreated {
		want[n] = true
	}
	for name, uid := range podUIDs(t, ns) {
		if changed := uid != before[name]; changed != want[name] {
			t.Errorf("pod %s recreated: %v, want %v", name, changed, want[name])
		}
	}
}

// Ordinal 0 gets its own cpu, ordinals 2-3 a label; changing the override
// of ordinal 0 replaces web-0 alone, and so does removing it, while the
// other pods move to each new revision without a restart. An override of
// an ordinal the set does not have is kept and counted as 0 pods.
func TestOverridesOfOrdinalZeroAndARange(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	mid := v1alpha1.OrdinalOverride{Name: "mid", Ordinals: []intstr.IntOrString{intstr.FromString("2-3")},
		Template: &v1alpha1.OverrideTemplate{Metadata: &v1alpha1.OverrideMetadata{Labels: map[string]string{"tier": "mid"}}}}
	later := cpuOverride("later", "1", intstr.FromInt32(9))
	createExtended(t, asExtended(t, webSet(ns, replicas(4), cpuRequest("100m")),
		withOverrides(cpuOverride("big", "200m", intstr.FromInt32(0)), mid, later)))
	set := waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)
	if got, want := fmt.Sprint(cpus(t, ns)), "map[web-0:200m web-1:100m web-2:100m web-3:100m]"; got != want {
		t.Errorf("cpu requests %s, want %s", got, want)
	}
	for _, p := range listPods(t, ns) {
		if got, want := p.Labels["tier"], map[bool]string{true: "mid"}[p.Name == "web-2" || p.Name == "web-3"]; got != want {
			t.Errorf("pod %s: label tier %q, want %q", p.Name, got, want)
		}
	}
	waitExtended(t, ns, 30*time.Second, "status.overrides", func(s *v1alpha1.StatefulSet) error {
		if got, want := fmt.Sprint(s.Status.Overrides), "[{big 1} {later 0} {mid 2}]"; got != want {
			return fmt.Errorf("status.overrides %s, want %s", got, want)
		}
		return nil
	})

	uids := podUIDs(t, ns)
	changeSet(t, ns, func(s *v1alpha1.StatefulSet) { s.Spec.Overrides[0] = cpuOverride("big", "300m", intstr.FromInt32(0)) })
	set = rolledTo(t, ns, set)
	checkRecreated(t, ns, uids, "web-0")
	if got := cpus(t, ns)["web-0"]; got != "300m" {
		t.Errorf("web-0 cpu %s after the change, want 300m", got)
	}

	uids = podUIDs(t, ns)
	changeSet(t, ns, func(s *v1alpha1.StatefulSet) { s.Spec.Overrides = s.Spec.Overrides[1:] })
	rolledTo(t, ns, set)
	checkRecreated(t, ns, uids, "web-0")
	if got, want := fmt.Sprint(cpus(t, ns)), "map[web-0:100m web-1:100m web-2:100m web-3:100m]"; got != want {
		t.Errorf("cpu requests after the removal %s, want %s", got, want)
	}
}

// Under InPlaceOnly a change of an override's cpu resizes its pod in
// place; no pod is recreated.
func TestOverridesWithInPlaceUpdates(t *testing.T) {
	t.Parallel()
	set := webSet("", replicas(3), cpuRequest("100m"))
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	set.Namespace = ns
	createExtended(t, asExtended(t, set, podUpdate(v1alpha1.PodUpdateInPlaceOnly), withOverrides(cpuOverride("big", "200m", intstr.FromInt32(0)))))
	before := waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)
	uids := podUIDs(t, ns)
	changeSet(t, ns, func(s *v1alpha1.StatefulSet) { s.Spec.Overrides[0] = cpuOverride("big", "300m", intstr.FromInt32(0)) })
	rolledTo(t, ns, before)
	checkRecreated(t, ns, uids)
	if got, want := fmt.Sprint(cpus(t, ns)), "map[web-0:300m web-1:100m web-2:100m]"; got != want {
		t.Errorf("cpu requests %s, want %s", got, want)
	}
	for _, p := range listPods(t, ns) {
		if rec := p.Annotations[v1alpha1.InPlaceUpdateAnnotation]; (rec != "") != (p.Name == "web-0") {
			t.Errorf("pod %s: in-place record %q; only web-0 is changed in place", p.Name, rec)
		}
	}
}

// A storage override under InPlace grows only its ordinal's claim, and
// no pod restarts.
func TestAStorageOverrideGrowsOnlyItsClaimInPlace(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	createExtended(t, inPlaceSet(t, ns))
	before := waitExtended(t, ns, 2*time.Minute, "3 ready replicas", claimsSettled)
	uids := podUIDs(t, ns)
	changeSet(t, ns, func(s *v1alpha1.StatefulSet) {
		s.Spec.Overrides = []v1alpha1.OrdinalOverride{{Name: "big", Ordinals: []intstr.IntOrString{intstr.FromInt32(0)},
			VolumeClaimTemplates: []v1alpha1.VolumeClaimOverride{{Name: "www", Storage: ptr(resource.MustParse("2Gi"))}}}}
	})
	waitExtended(t, ns, 3*time.Minute, "the override rolled out", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == before.Status.UpdateRevision {
			return fmt.Errorf("no new revision yet")
		}
		return claimsSettled(s)
	})
	checkRecreated(t, ns, uids)
	for ord, want := range []string{"2Gi", "1Gi", "1Gi"} {
		name := fmt.Sprintf("www-%s-%d", setName, ord)
		c, ok := getClaim(t, ns, name)
		if !ok {
			t.Fatalf("claim %s is gone", name)
		}
		if got := c.Status.Capacity[corev1.ResourceStorage]; got.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("claim %s: capacity %s, want %s", name, got.String(), want)
		}
	}
}

// Undo across an override change restores the revision's overrides with
// its template, reuses its revision and replaces only the overridden pod.
func TestUndoAcrossAnOverrideChange(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3), cpuRequest("100m")), withOverrides(cpuOverride("big", "200m", intstr.FromInt32(0)))))
	first := waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)
	uids := podUIDs(t, ns)
	changeSet(t, ns, func(s *v1alpha1.StatefulSet) { s.Spec.Overrides[0] = cpuOverride("big", "300m", intstr.FromInt32(0)) })
	second := rolledTo(t, ns, first)

	target, err := setops.LoadExtended(context.Background(), client, extendedClient(t), ns, setName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := target.Undo(context.Background(), 0); err != nil {
		t.Fatalf("undo: %v", err)
	}
	back := rolledTo(t, ns, second)
	if back.Status.UpdateRevision != first.Status.UpdateRevision {
		t.Errorf("update revision after undo %s, want the first one, %s", back.Status.UpdateRevision, first.Status.UpdateRevision)
	}
	if got := back.Spec.Overrides; len(got) != 1 || got[0].Template.Spec.Containers[0].Resources.Requests.Cpu().String() != "200m" {
		t.Errorf("overrides after undo %+v, want big at 200m", got)
	}
	if got, want := fmt.Sprint(cpus(t, ns)), "map[web-0:200m web-1:100m web-2:100m]"; got != want {
		t.Errorf("cpu requests %s, want %s", got, want)
	}
	for name, uid := range podUIDs(t, ns) {
		if name != "web-0" && uid != uids[name] {
			t.Errorf("pod %s was recreated by the change or the undo", name)
		}
	}
}

// selectedByExpression selects the set by an expression too (operator op
// on key tier, or canary for DoesNotExist, with value), its template
// labelled to match, and gives ordinal 0 an override labelling key k with
// v.
func selectedByExpression(op metav1.LabelSelectorOperator, value, k, v string) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) {
		expr := metav1.LabelSelectorRequirement{Key: "tier", Operator: op, Values: []string{value}}
		if op == metav1.LabelSelectorOpDoesNotExist {
			expr = metav1.LabelSelectorRequirement{Key: "canary", Operator: op}
		}
		s.Spec.Selector.MatchExpressions = append(s.Spec.Selector.MatchExpressions, expr)
		if op == metav1.LabelSelectorOpIn {
			s.Spec.Template.Labels["tier"] = value
		}
		s.Spec.Overrides = []v1alpha1.OrdinalOverride{{Name: "a", Ordinals: []intstr.IntOrString{intstr.FromInt32(0)},
			Template: &v1alpha1.OverrideTemplate{Metadata: &v1alpha1.OverrideMetadata{Labels: map[string]string{k: v}}}}}
	}
}

// The schema's and CEL's refusals of overrides, each with its message.
func TestInvalidOverridesAreRefused(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	sets := extendedSets(t, ns)
	for _, c := range []struct {
		name   string
		mutate func(*v1alpha1.StatefulSet)
		want   string
	}{
		{"an ordinal in two overrides", withOverrides(cpuOverride("a", "1", intstr.FromInt32(0), intstr.FromString("3-5")), cpuOverride("b", "1", intstr.FromString("5-6"))),
			"two overrides list the same ordinal; an ordinal may have one override at most"},
		{"two overrides of one name", withOverrides(cpuOverride("a", "1", intstr.FromInt32(0)), cpuOverride("a", "1", intstr.FromInt32(1))),
			`spec.overrides[1]: Duplicate value: {"name":"a"}`},
		{"an ordinal that is not one", withOverrides(cpuOverride("a", "1", intstr.FromString("x"))),
			`spec.overrides[].ordinals entries must be ordinals`},
		{"a claim template the set does not have", withOverrides(v1alpha1.OrdinalOverride{Name: "a", Ordinals: []intstr.IntOrString{intstr.FromInt32(0)},
			VolumeClaimTemplates: []v1alpha1.VolumeClaimOverride{{Name: "data", Storage: ptr(resource.MustParse("2Gi"))}}}),
			"spec.overrides[].volumeClaimTemplates[].name must name one of spec.volumeClaimTemplates"},
		{"a selector label changed", withOverrides(v1alpha1.OrdinalOverride{Name: "a", Ordinals: []intstr.IntOrString{intstr.FromInt32(0)},
			Template: &v1alpha1.OverrideTemplate{Metadata: &v1alpha1.OverrideMetadata{Labels: map[string]string{"app": "other"}}}}),
			"spec.overrides[].template.metadata.labels must not change a label of spec.selector.matchLabels"},
		{"a label a selector expression reads moved out of its values", selectedByExpression(metav1.LabelSelectorOpIn, "db", "tier", "cache"),
			"spec.overrides[].template.metadata.labels must still match spec.selector.matchExpressions: the pod would leave its set"},
		{"a label moved into a NotIn expression's values", selectedByExpression(metav1.LabelSelectorOpNotIn, "cache", "tier", "cache"),
			"spec.overrides[].template.metadata.labels must still match spec.selector.matchExpressions: the pod would leave its set"},
		{"a label a DoesNotExist expression forbids", selectedByExpression(metav1.LabelSelectorOpDoesNotExist, "", "canary", "yes"),
			"spec.overrides[].template.metadata.labels must still match spec.selector.matchExpressions: the pod would leave its set"},
		{"an override that sets nothing", withOverrides(v1alpha1.OrdinalOverride{Name: "a", Ordinals: []intstr.IntOrString{intstr.FromInt32(0)}}),
			"spec.overrides[] must set template or volumeClaimTemplates"},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := extended(t, webSet(ns))
			c.mutate(set)
			_, err := sets.Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	t.Run("labels that still match the selector's expressions are accepted", func(t *testing.T) {
		for _, mutate := range []func(*v1alpha1.StatefulSet){
			selectedByExpression(metav1.LabelSelectorOpIn, "db", "tier", "db"),
			selectedByExpression(metav1.LabelSelectorOpNotIn, "cache", "tier", "db"),
			selectedByExpression(metav1.LabelSelectorOpDoesNotExist, "", "zone", "a"),
		} {
			set := extended(t, webSet(ns))
			mutate(set)
			if _, err := sets.Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
				t.Errorf("overrides %+v under selector %+v refused: %v", set.Spec.Overrides[0].Template.Metadata.Labels, set.Spec.Selector, err)
			}
		}
	})
	t.Run("a field an override may not set", func(t *testing.T) {
		set := extended(t, webSet(ns))
		set.Spec.Overrides = []v1alpha1.OrdinalOverride{cpuOverride("a", "1", intstr.FromInt32(0))}
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(set)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: obj}
		u.SetAPIVersion(v1alpha1.SchemeGroupVersion.String())
		u.SetKind("StatefulSet")
		overrides, _, _ := unstructured.NestedSlice(u.Object, "spec", "overrides")
		spec := overrides[0].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		spec["volumes"] = []any{map[string]any{"name": "x", "emptyDir": map[string]any{}}}
		if err := unstructured.SetNestedSlice(u.Object, overrides, "spec", "overrides"); err != nil {
			t.Fatal(err)
		}
		dyn, err := dynamic.NewForConfig(restConfig(20, 30))
		if err != nil {
			t.Fatal(err)
		}
		gvr := schema.GroupVersionResource{Group: v1alpha1.SchemeGroupVersion.Group, Version: v1alpha1.SchemeGroupVersion.Version, Resource: "statefulsets"}
		_, err = dyn.Resource(gvr).Namespace(ns).Create(context.Background(), u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		if want := `unknown field "spec.overrides[0].template.spec.volumes"`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one saying %q", err, want)
		}
	})
}
