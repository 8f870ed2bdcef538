package planner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// memoryOverride gives the app container of the listed ordinals a memory
// request.
func memoryOverride(name, memory string, ordinals ...intstr.IntOrString) v1alpha1.OrdinalOverride {
	return v1alpha1.OrdinalOverride{Name: name, Ordinals: ordinals, Template: &v1alpha1.OverrideTemplate{
		Spec: &v1alpha1.OverridePodSpec{Containers: []v1alpha1.ContainerOverride{{Name: "app",
			Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)}}}}}}}
}

func ords(list ...any) []intstr.IntOrString {
	var out []intstr.IntOrString
	for _, v := range list {
		switch v := v.(type) {
		case int:
			out = append(out, intstr.FromInt32(int32(v)))
		case string:
			out = append(out, intstr.FromString(v))
		}
	}
	return out
}

// overrideFixture is a set of four pods whose revisions hold overrides:
// the current one's were and the update one's are, with the same template.
type overrideFixture struct {
	fixture
	was, are []v1alpha1.OrdinalOverride
	opts     revision.Options
}

func overrideRollout(was, are []v1alpha1.OrdinalOverride, opts ...testgen.SetOption) overrideFixture {
	return overrideRolloutWith(revision.Options{}, was, are, opts...)
}

func overrideRolloutWith(o revision.Options, was, are []v1alpha1.OrdinalOverride, opts ...testgen.SetOption) overrideFixture {
	set := testgen.StatefulSet("web", append([]testgen.SetOption{testgen.Replicas(4), testgen.Image("app:1")}, opts...)...)
	curOpts, updOpts := o, o
	curOpts.Overrides, updOpts.Overrides = was, are
	cur, err := revision.NewWith(set, 1, nil, curOpts)
	if err != nil {
		panic(err)
	}
	upd, err := revision.NewWith(set, 2, nil, updOpts)
	if err != nil {
		panic(err)
	}
	if cur.Name == upd.Name {
		upd = cur
	}
	set.Status.CurrentRevision, set.Status.UpdateRevision = cur.Name, upd.Name
	return overrideFixture{fixture: fixture{set: set, cur: cur, upd: upd}, was: was, are: are, opts: o}
}

// effective is set with ordinal ord's effective template under list.
func effective(set *appsv1.StatefulSet, list []v1alpha1.OrdinalOverride, ord int32) *appsv1.StatefulSet {
	read, err := planner.ReadOverrides(list)
	if err != nil {
		panic(err)
	}
	if i := planner.OverrideAt(read, ord); i >= 0 {
		return planner.EffectiveSet(set, &list[i])
	}
	return set
}

// old is the pod at ord at the current revision, made from its effective
// template there.
func (f overrideFixture) old(ord int32, opts ...testgen.PodOption) *corev1.Pod {
	return testgen.Pod(effective(f.set, f.was, ord), ord, append([]testgen.PodOption{testgen.At(f.cur)}, opts...)...)
}

func (f overrideFixture) olds(ordinals ...int32) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range ordinals {
		out = append(out, f.old(o))
	}
	return out
}

func (f overrideFixture) plan(e *planner.Extended, pods []*corev1.Pod, claims ...*corev1.PersistentVolumeClaim) planner.Plan {
	in := f.input(pods, claims...)
	in.Extended = e
	return compute(in)
}

func memoryOf(pod *corev1.Pod) string {
	q, ok := pod.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]
	if !ok {
		return "none"
	}
	return q.String()
}

func TestPodsAreCreatedWithTheirOrdinalsOverride(t *testing.T) {
	big := []v1alpha1.OrdinalOverride{memoryOverride("big", "2Gi", ords(0)...), memoryOverride("mid", "1Gi", ords("2-3")...)}
	f := overrideRollout(big, big, testgen.Parallel())
	plan := f.plan(extended(), nil)
	got := map[string]string{}
	for _, s := range plan.Steps {
		for _, a := range s.Actions {
			if a.Kind == planner.CreatePod {
				got[a.Pod.Name] = memoryOf(a.Pod) + " at " + f.alias(a.Pod.Labels[appsv1.StatefulSetRevisionLabel])
			}
		}
	}
	want := map[string]string{"web-0": "2Gi at current", "web-1": "none at current", "web-2": "1Gi at current", "web-3": "1Gi at current"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("created pods (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]planner.OverrideCount{{Name: "big", Replicas: 1}, {Name: "mid", Replicas: 2}}, plan.Extended.Status.Overrides); diff != "" {
		t.Errorf("status.overrides (-want +got):\n%s", diff)
	}
}

func TestAChangeOfOneOverrideRollsOnlyItsPods(t *testing.T) {
	was := []v1alpha1.OrdinalOverride{memoryOverride("big", "2Gi", ords(0)...), memoryOverride("mid", "1Gi", ords("2-3")...)}
	bigger := []v1alpha1.OrdinalOverride{memoryOverride("big", "3Gi", ords(0)...), was[1]}
	moves := []string{"rolling update: UpdatePod web-1", "rolling update: UpdatePod web-2", "rolling update: UpdatePod web-3"}
	for _, tc := range []struct {
		name  string
		f     overrideFixture
		e     *planner.Extended
		steps []string
	}{
		{"the other pods move by their label and the override's pod is replaced", overrideRollout(was, bigger), extended(),
			append(moves, "rolling update: DeletePod web-0")},
		{"removing an override replaces its pods only", overrideRollout(was, was[1:]), extended(),
			append(moves, "rolling update: DeletePod web-0")},
		{"an override of an ordinal outside the set moves every pod and replaces none", overrideRollout(was, append(was, memoryOverride("later", "4Gi", ords(9)...))), extended(),
			[]string{"rolling update: UpdatePod web-0", "rolling update: UpdatePod web-1", "rolling update: UpdatePod web-2", "rolling update: UpdatePod web-3"}},
		{"the partition holds the pods below it where they are", overrideRollout(was, bigger, testgen.Partition(2)), extended(),
			[]string{"rolling update: UpdatePod web-2", "rolling update: UpdatePod web-3"}},
		{"a paused set moves no pod", overrideRollout(was, bigger), extended(func(e *planner.Extended) { e.Paused = true }), nil},
		{"OnDelete moves the pods whose template is the same and leaves the others", overrideRollout(was, bigger, testgen.OnDelete()), extended(), moves},
		{"Recreate deletes only the pods whose template changed", overrideRollout(was, bigger, testgen.Recreate()), extended(func(e *planner.Extended) { e.Recreate = true }),
			append(moves, "recreate: DeletePod web-0")},
		{"an in-place set resizes only the override's pod", overrideRollout(was, bigger), extended(func(e *planner.Extended) { e.PodUpdate = v1alpha1.PodUpdateInPlaceIfPossible }),
			append(moves, "rolling update: ResizePod web-0", "rolling update: PatchPod web-0")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := tc.f.plan(tc.e, tc.f.olds(0, 1, 2, 3))
			if diff := cmp.Diff(tc.steps, tc.f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			for _, s := range plan.Steps {
				for _, a := range s.Actions {
					if a.Kind == planner.UpdatePod && a.Pod.Labels[appsv1.StatefulSetRevisionLabel] != tc.f.upd.Name {
						t.Errorf("%s is written with revision %s, want the update revision", a.Pod.Name, a.Pod.Labels[appsv1.StatefulSetRevisionLabel])
					}
				}
			}
		})
	}
}

// A set without overrides is planned as before: a new template replaces
// every pod.
func TestWithoutOverridesEveryPodIsReplaced(t *testing.T) {
	f := rollout(testgen.Replicas(2))
	plan := f.ext(extended(), f.pod(0), f.pod(1))
	if diff := cmp.Diff([]string{"rolling update: DeletePod web-1"}, f.summary(plan)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

// A not-Ready pod whose template an override change leaves alone is moved,
// not replaced by self-healing.
func TestSelfHealingLeavesAPodWhoseTemplateDidNotChange(t *testing.T) {
	was := []v1alpha1.OrdinalOverride{memoryOverride("big", "2Gi", ords(0)...)}
	f := overrideRollout(was, []v1alpha1.OrdinalOverride{memoryOverride("big", "3Gi", ords(0)...)})
	plan := f.plan(extended(), with(f.olds(0, 1, 2), f.old(3, testgen.NotReady(now))))
	want := []string{"rolling update: UpdatePod web-1", "rolling update: UpdatePod web-2", "rolling update: UpdatePod web-3"}
	if diff := cmp.Diff(want, f.summary(plan)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

func TestAStorageOverrideGrowsOnlyItsOrdinalsClaims(t *testing.T) {
	grow := []v1alpha1.OrdinalOverride{{Name: "big", Ordinals: ords(0), VolumeClaimTemplates: []v1alpha1.VolumeClaimOverride{{Name: "www", Storage: ptr.To(resource.MustParse("5Gi"))}}}}
	f := overrideRolloutWith(revision.Options{Claims: true}, nil, grow, testgen.ClaimTemplates("www"))
	var claims []*corev1.PersistentVolumeClaim
	for ord := int32(0); ord < 4; ord++ {
		claims = append(claims, testgen.Claim(f.set, "www", ord, bound("1Gi", f.cur)))
	}
	plan := f.plan(claimsInPlace(true), f.olds(0, 1, 2, 3), claims...)
	// Every claim is labelled with the new revision; only web-0's grows.
	want := []string{"rolling update: UpdateClaimStorage www-web-3", "rolling update: UpdateClaimStorage www-web-2", "rolling update: UpdateClaimStorage www-web-1", "rolling update: UpdateClaimStorage www-web-0"}
	var got []string
	for _, s := range plan.Steps {
		for _, a := range s.Actions {
			name := a.Claim.GetName()
			if a.Pod != nil {
				name = a.Pod.Name
			}
			got = append(got, s.Name+": "+string(a.Kind)+" "+name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	for _, s := range plan.Steps {
		for _, a := range s.Actions {
			if a.Kind != planner.UpdateClaimStorage {
				continue
			}
			want := "0"
			if a.Claim.Name == "www-web-0" {
				want = "5Gi"
			}
			if got := a.Claim.Spec.Resources.Requests[corev1.ResourceStorage]; got.String() != want {
				t.Errorf("claim %s patched to storage %s, want %s", a.Claim.Name, got.String(), want)
			}
		}
	}
	if got := plan.Extended.Status.VolumeClaims[0].MatchingReplicas; got != 3 {
		t.Errorf("matching claims %d, want 3 (web-0's is still 1Gi)", got)
	}
	// Once the claims are done, the pods whose template did not change move
	// and web-0, whose claim has grown, moves too: only storage changed.
	for i, c := range claims {
		c.Labels[v1alpha1.ClaimRevisionLabel] = f.upd.Name
		if i == 0 {
			bound("5Gi", f.upd)(c)
			c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("5Gi")
		}
	}
	plan = f.plan(claimsInPlace(true), f.olds(0, 1, 2, 3), claims...)
	want = []string{"rolling update: UpdatePod web-3", "rolling update: UpdatePod web-2", "rolling update: UpdatePod web-1", "rolling update: UpdatePod web-0"}
	if diff := cmp.Diff(want, f.summary(plan)); diff != "" {
		t.Errorf("steps once the claims are done (-want +got):\n%s", diff)
	}
}

func TestAMissingClaimIsMadeFromItsEffectiveTemplate(t *testing.T) {
	grow := []v1alpha1.OrdinalOverride{{Name: "big", Ordinals: ords(0), VolumeClaimTemplates: []v1alpha1.VolumeClaimOverride{{Name: "www", Storage: ptr.To(resource.MustParse("5Gi")), StorageClassName: ptr.To("fast")}}}}
	f := overrideRollout(grow, grow, testgen.ClaimTemplates("www"), testgen.Parallel())
	plan := f.plan(extended(), nil)
	got := map[string]string{}
	for _, s := range plan.Steps {
		for _, a := range s.Actions {
			if a.Kind == planner.CreateClaim {
				q := a.Claim.Spec.Resources.Requests[corev1.ResourceStorage]
				got[a.Claim.Name] = q.String() + " " + ptr.Deref(a.Claim.Spec.StorageClassName, "-")
			}
		}
	}
	want := map[string]string{"www-web-0": "5Gi fast", "www-web-1": "1Gi -", "www-web-2": "1Gi -", "www-web-3": "1Gi -"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
}

func TestAnOverrideOfAnUnknownContainerIsReported(t *testing.T) {
	ghost := memoryOverride("ghost", "2Gi", ords(0)...)
	ghost.Template.Spec.Containers[0].Name = "sidecar"
	f := overrideRollout(nil, []v1alpha1.OrdinalOverride{ghost})
	plan := f.plan(extended(), f.olds(0, 1, 2, 3))
	if diff := cmp.Diff([]string{planner.ReasonOverrideUnknownContainer + " StatefulSet/web"}, warningReasons(plan)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// The override changes nothing, so every pod moves.
	if n := len(f.summary(plan)); n != 4 {
		t.Errorf("%d actions, want the 4 moves: %v", n, f.summary(plan))
	}
}

func TestEffectiveTemplate(t *testing.T) {
	base := testgen.StatefulSet("web", testgen.Image("app:1")).Spec.Template
	base.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}
	base.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	base.Spec.NodeSelector = map[string]string{"zone": "a", "disk": "ssd"}
	base.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
	base.Spec.PriorityClassName = "low"
	o := &v1alpha1.OverrideTemplate{
		Metadata: &v1alpha1.OverrideMetadata{Labels: map[string]string{"tier": "big"}, Annotations: map[string]string{"note": "x"}},
		Spec: &v1alpha1.OverridePodSpec{
			Containers: []v1alpha1.ContainerOverride{{Name: "app", Image: "app:2", Args: []string{"--big"},
				Env:       []corev1.EnvVar{{Name: "B", Value: "20"}, {Name: "C", Value: "3"}},
				Resources: &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}}}},
			NodeSelector:      map[string]string{"zone": "b"},
			Tolerations:       []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}, {Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db"}},
			PriorityClassName: "high",
		},
	}
	got := planner.EffectiveTemplate(&base, o)
	c := got.Spec.Containers[0]
	checks := []struct{ what, got, want string }{
		{"label", got.Labels["tier"], "big"},
		{"selector label kept", got.Labels["app"], base.Labels["app"]},
		{"annotation", got.Annotations["note"], "x"},
		{"image", c.Image, "app:2"},
		{"args", c.Args[0], "--big"},
		{"env", envWords(c.Env), "A=1 B=20 C=3"},
		{"cpu request kept", c.Resources.Requests.Cpu().String(), "1"},
		{"memory limit added", c.Resources.Limits.Memory().String(), "2Gi"},
		{"nodeSelector", got.Spec.NodeSelector["zone"] + "," + got.Spec.NodeSelector["disk"], "b,ssd"},
		{"tolerations appended once", toleranceKeys(got.Spec.Tolerations), "k dedicated"},
		{"priorityClassName", got.Spec.PriorityClassName, "high"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: %q, want %q", ch.what, ch.got, ch.want)
		}
	}
	if base.Spec.Containers[0].Image != "app:1" || len(base.Spec.Containers[0].Env) != 2 || base.Spec.NodeSelector["zone"] != "a" {
		t.Error("the base template was changed")
	}
	if same := planner.EffectiveTemplate(&base, nil); !cmp.Equal(same, base) {
		t.Errorf("no override changes the template:\n%s", cmp.Diff(base, same))
	}
}

func envWords(env []corev1.EnvVar) string {
	var s string
	for i, e := range env {
		if i > 0 {
			s += " "
		}
		s += e.Name + "=" + e.Value
	}
	return s
}

func toleranceKeys(ts []corev1.Toleration) string {
	var s string
	for i, t := range ts {
		if i > 0 {
			s += " "
		}
		s += t.Key
	}
	return s
}

func TestEffectiveClaimsNeverShrink(t *testing.T) {
	base := testgen.StatefulSet("web", testgen.ClaimTemplates("www")).Spec.VolumeClaimTemplates
	base[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("10Gi")
	got := planner.EffectiveClaims(base, []v1alpha1.VolumeClaimOverride{{Name: "www", Storage: ptr.To(resource.MustParse("5Gi")), VolumeAttributesClassName: ptr.To("gold")}})
	if q := got[0].Spec.Resources.Requests[corev1.ResourceStorage]; q.String() != "10Gi" || ptr.Deref(got[0].Spec.VolumeAttributesClassName, "") != "gold" {
		t.Errorf("claim template %s %v, want 10Gi and class gold", q.String(), got[0].Spec.VolumeAttributesClassName)
	}
	if base[0].Spec.VolumeAttributesClassName != nil {
		t.Error("the base claim template was changed")
	}
}

// Under InPlace claims a pod still at an older revision than the current
// one, whose template the update leaves equal, is moved, not replaced.
func TestAnInPlaceClaimSetMovesAnOlderPodWhoseTemplateIsTheSame(t *testing.T) {
	was := []v1alpha1.OrdinalOverride{memoryOverride("big", "2Gi", ords(0)...)}
	f := overrideRolloutWith(revision.Options{Claims: true}, was, []v1alpha1.OrdinalOverride{memoryOverride("big", "3Gi", ords(0)...)}, testgen.ClaimTemplates("www"))
	older, err := revision.NewWith(f.set, 0, nil, revision.Options{Claims: true, Overrides: []v1alpha1.OrdinalOverride{memoryOverride("big", "1Gi", ords(0)...)}})
	if err != nil {
		t.Fatal(err)
	}
	var claims []*corev1.PersistentVolumeClaim
	for ord := int32(0); ord < 4; ord++ {
		claims = append(claims, testgen.Claim(f.set, "www", ord, bound("1Gi", f.upd)))
	}
	pods := with(f.olds(0, 1, 2), testgen.Pod(f.set, 3, testgen.At(older)))
	e := claimsInPlace(true, func(e *planner.Extended) { observedOf(e).Revisions = []*appsv1.ControllerRevision{older, f.cur, f.upd} })
	plan := f.plan(e, pods, claims...)
	want := []string{"rolling update: UpdatePod web-3", "rolling update: UpdatePod web-2", "rolling update: UpdatePod web-1", "rolling update: DeletePod web-0"}
	if diff := cmp.Diff(want, f.summary(plan)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

// An override whose labels would take its pods out of the set's selector
// (matchExpressions too, which the schema's rules now also refuse, but a
// set stored before them may have) is refused: nothing is planned, and a
// warning names the override, so no pod is created that the set would
// not own.
func TestAnOverrideThatLeavesTheSelectorIsRefused(t *testing.T) {
	relabel := func(name string, labels map[string]string) v1alpha1.OrdinalOverride {
		return v1alpha1.OrdinalOverride{Name: name, Ordinals: ords(1),
			Template: &v1alpha1.OverrideTemplate{Metadata: &v1alpha1.OverrideMetadata{Labels: labels}}}
	}
	expressions := func(exprs ...metav1.LabelSelectorRequirement) testgen.SetOption {
		return func(s *appsv1.StatefulSet) { s.Spec.Selector = &metav1.LabelSelector{MatchExpressions: exprs} }
	}
	in := metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}}
	notIn := metav1.LabelSelectorRequirement{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"cache"}}
	absent := metav1.LabelSelectorRequirement{Key: "canary", Operator: metav1.LabelSelectorOpDoesNotExist}
	for _, tc := range []struct {
		name     string
		override v1alpha1.OrdinalOverride
		sel      testgen.SetOption
		refused  bool
	}{
		{"In a value the expression does not list", relabel("moved", map[string]string{"app": "db"}), expressions(in), true},
		{"NotIn a value the expression lists", relabel("moved", map[string]string{"tier": "cache"}), expressions(notIn), true},
		{"DoesNotExist a label the override adds", relabel("moved", map[string]string{"canary": "yes"}), expressions(absent), true},
		{"matchLabels changed", relabel("moved", map[string]string{"app": "db"}), func(*appsv1.StatefulSet) {}, true},
		{"a label the selector does not read", relabel("kept", map[string]string{"zone": "a"}), expressions(in, notIn, absent), false},
		{"In a value the expression lists", relabel("kept", map[string]string{"app": "web", "tier": "db"}), expressions(in, notIn), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := []v1alpha1.OrdinalOverride{tc.override}
			f := overrideRollout(list, list, testgen.Parallel(), tc.sel)
			plan := f.plan(extended(), f.olds(0))
			var created []string
			for _, s := range plan.Steps {
				for _, a := range s.Actions {
					if a.Kind == planner.CreatePod {
						created = append(created, a.Pod.Name)
					}
				}
			}
			var warned bool
			for _, w := range plan.Warnings {
				warned = warned || w.Reason == planner.ReasonOverrideLeavesSet
			}
			if tc.refused && (len(created) != 0 || !warned) {
				t.Errorf("created %v and warned %t (%v), want nothing created and an %s warning", created, warned, plan.Warnings, planner.ReasonOverrideLeavesSet)
			}
			if !tc.refused && (len(created) != 3 || warned) {
				t.Errorf("created %v and warned %t (%v), want web-1 to web-3 created and no warning", created, warned, plan.Warnings)
			}
		})
	}
}
