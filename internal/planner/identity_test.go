package planner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestParseOrdinal(t *testing.T) {
	tests := []struct {
		name, pod string
		want      int32
		ok        bool
	}{
		{"a plain ordinal parses", "web-3", 3, true},
		{"a set name with dashes parses", "my-web-12", 12, true},
		{"the largest int32 parses", "web-2147483647", 2147483647, true},
		{"an ordinal past int32 does not", "web-2147483648", 0, false},
		{"leading zeros parse, as upstream reads them", "web-03", 3, true},
		{"a pod of a set whose name ends in a number does not belong to its prefix", "web-1-2", 0, false},
		{"another set's pod does not parse", "webapp-3", 0, false},
		{"a non-numeric suffix does not parse", "web-x", 0, false},
		{"a sign does not parse", "web-+1", 0, false},
		{"no suffix does not parse", "web-", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := "web"
			if strings.HasPrefix(tt.pod, "my-") {
				set = "my-web"
			}
			got, ok := planner.ParseOrdinal(set, tt.pod)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseOrdinal(%q, %q) = %d, %v; want %d, %v", set, tt.pod, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestNames(t *testing.T) {
	if got := planner.PodName("web", 7); got != "web-7" {
		t.Errorf("PodName() = %q", got)
	}
	if got := planner.ClaimName("data", "web", 7); got != "data-web-7" {
		t.Errorf("ClaimName() = %q", got)
	}
}

func TestNewPod(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.ClaimTemplates("data", "logs"), testgen.TemplateAnnotation("a", "b"))
	set.Spec.Template.Finalizers = []string{"example.com/keep"}
	set.Spec.Template.Spec.Volumes = []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "logs", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	rev := testgen.RevisionOf(set, 1)
	// The live set has moved on to another image: the pod must still be
	// built from the revision's template.
	live := set.DeepCopy()
	live.Spec.Template.Spec.Containers[0].Image = "app:other"
	got, err := planner.NewPod(live, rev, 4)
	if err != nil {
		t.Fatal(err)
	}
	claimVolume := func(name, claim string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
	}
	spec := *set.Spec.Template.Spec.DeepCopy()
	spec.Hostname, spec.Subdomain = "web-4", "web"
	spec.Volumes = []corev1.Volume{claimVolume("data", "data-web-4"), claimVolume("logs", "logs-web-4"), set.Spec.Template.Spec.Volumes[0]}
	want := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-4", GenerateName: "web-", Namespace: testgen.Namespace,
			Labels: map[string]string{
				"app": "web", appsv1.StatefulSetPodNameLabel: "web-4", appsv1.PodIndexLabel: "4",
				appsv1.StatefulSetRevisionLabel: rev.Name,
			},
			Annotations:     map[string]string{"a": "b"},
			Finalizers:      []string{"example.com/keep"},
			OwnerReferences: []metav1.OwnerReference{testgen.ControllerRef("apps/v1", "StatefulSet", "web", set.UID)},
		},
		Spec: spec,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewPod() mismatch (-want +got):\n%s", diff)
	}
	t.Run("the pod does not share maps with the set", func(t *testing.T) {
		got.Labels["app"], got.Annotations["a"] = "changed", "changed"
		if live.Spec.Template.Labels["app"] != "web" || live.Spec.Template.Annotations["a"] != "b" {
			t.Error("NewPod() aliased the template's maps")
		}
	})
}

func TestNewClaim(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.ClaimTemplates("data"))
	set.Spec.VolumeClaimTemplates[0].Labels["app"] = "overridden-by-selector"
	set.Spec.VolumeClaimTemplates[0].Annotations = map[string]string{"volume.beta.kubernetes.io/storage-class": "fast"}
	got := planner.NewClaim(set, &set.Spec.VolumeClaimTemplates[0], 2)
	want := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: "data-web-2", Namespace: testgen.Namespace,
			Labels:      map[string]string{"tier": "storage", "app": "web"},
			Annotations: map[string]string{"volume.beta.kubernetes.io/storage-class": "fast"},
		},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewClaim() mismatch (-want +got):\n%s", diff)
	}
	if set.Spec.VolumeClaimTemplates[0].Labels["app"] != "overridden-by-selector" {
		t.Error("NewClaim() modified the template")
	}
	t.Run("a template without labels gets the selector's labels", func(t *testing.T) {
		set.Spec.VolumeClaimTemplates[0].Labels = nil
		if got := planner.NewClaim(set, &set.Spec.VolumeClaimTemplates[0], 0).Labels; !cmp.Equal(got, map[string]string{"app": "web"}) {
			t.Errorf("labels = %v", got)
		}
	})
}

func TestAvailability(t *testing.T) {
	ready := func(since time.Time) *corev1.Pod {
		return testgen.Pod(testgen.StatefulSet("web"), 0, testgen.Ready(since))
	}
	zero := ready(time.Time{})
	zero.Status.Conditions[0].LastTransitionTime = metav1.Time{}
	tests := []struct {
		name     string
		pod      *corev1.Pod
		minReady int32
		want     bool
	}{
		{"a ready pod is available at once without minReadySeconds", ready(now), 0, true},
		{"a pod ready for less than minReadySeconds is not available", ready(now.Add(-29 * time.Second)), 30, false},
		{"a pod ready for exactly minReadySeconds is available", ready(now.Add(-30 * time.Second)), 30, true},
		{"a ready condition without a time never becomes available", zero, 30, false},
		{"a pod that is not ready is not available", testgen.Pod(testgen.StatefulSet("web"), 0, testgen.NotReady(testgen.Epoch)), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := planner.IsAvailable(tt.pod, tt.minReady, now); got != tt.want {
				t.Errorf("IsAvailable() = %v, want %v", got, tt.want)
			}
		})
	}
	if planner.IsRunningAndReady(testgen.Pod(testgen.StatefulSet("web"), 0, testgen.Pending())) {
		t.Error("a pending pod is running and ready")
	}
}

func TestRepairs(t *testing.T) {
	f := steady(testgen.Replicas(2), testgen.ClaimTemplates("data"))
	claims := []*corev1.PersistentVolumeClaim{testgen.Claim(f.set, "data", 0), testgen.Claim(f.set, "data", 1)}
	t.Run("a pod without its pod-name label gets its identity labels back", func(t *testing.T) {
		pods := with(f.pods(1), f.pod(0, testgen.PodLabel(appsv1.StatefulSetPodNameLabel, ""), testgen.PodLabel(appsv1.PodIndexLabel, "")))
		plan := compute(f.input(pods, claims...))
		if diff := cmp.Diff([]string{"replicas: UpdatePod web-0"}, f.summary(plan)); diff != "" {
			t.Fatalf("steps mismatch (-want +got):\n%s", diff)
		}
		want := f.pod(0).Labels
		if diff := cmp.Diff(want, plan.Steps[0].Actions[0].Pod.Labels); diff != "" {
			t.Errorf("repaired labels mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a pod missing only its pod-index label is left alone, as upstream", func(t *testing.T) {
		pods := with(f.pods(1), f.pod(0, testgen.PodLabel(appsv1.PodIndexLabel, "")))
		if plan := compute(f.input(pods, claims...)); len(plan.Steps) != 0 {
			t.Errorf("steps = %v", f.summary(plan))
		}
	})
	t.Run("a pod whose volumes miss its claims is reported, and not written (pod volumes cannot change)", func(t *testing.T) {
		pods := with(f.pods(1), f.pod(0, testgen.NoVolumes()))
		plan := compute(f.input(pods, claims...))
		if diff := cmp.Diff([]string(nil), f.summary(plan)); diff != "" {
			t.Errorf("steps mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"StorageMismatch Pod/web-0"}, warningReasons(plan)); diff != "" {
			t.Errorf("warnings mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestWarnings(t *testing.T) {
	f := steady(testgen.Replicas(1))
	long := steady(testgen.Replicas(1), func(s *appsv1.StatefulSet) { s.Name = strings.Repeat("w", 60) })
	bad := steady(testgen.Replicas(1), testgen.MaxUnavailablePercent("lots"))
	tests := []struct {
		name string
		in   planner.Input
		want []string
	}{{
		name: "pods with names that are not <set>-<ordinal> are reported and ignored",
		in:   f.input(with(f.pods(0), f.pod(1, testgen.Named("web-x")), f.pod(3, testgen.Named("webapp-3")))),
		want: []string{"UnparsableName Pod/web-x", "UnparsableName Pod/webapp-3"},
	}, {
		name: "a pod listed twice is reported once",
		in:   f.input(with(f.pods(0), f.pod(0))),
		want: []string{"DuplicatePod Pod/web-0"},
	}, {
		name: "a set name that makes the revision label too long is reported",
		in:   long.input(nil),
		want: []string{"RevisionLabelTooLong ControllerRevision/" + long.upd.Name},
	}, {
		name: "a missing revision plans nothing and says so",
		in:   planner.Input{Set: f.set, Now: now},
		want: []string{"MissingRevision StatefulSet/web"},
	}, {
		name: "corrupt revision data plans nothing and says so",
		in: planner.Input{Set: f.set, Now: now, Current: f.cur, Update: &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Name: "web-bad"}, Data: runtime.RawExtension{Raw: []byte("{")},
		}},
		want: []string{"InvalidRevision StatefulSet/web"},
	}, {
		name: "an invalid maxUnavailable stops the rolling update",
		in:   bad.input(with(bad.pods(0))),
		want: []string{"InvalidMaxUnavailable StatefulSet/web"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := compute(tt.in)
			if diff := cmp.Diff(tt.want, warningReasons(plan)); diff != "" {
				t.Errorf("warnings mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("every pod listed twice is reported as such, wherever its first copy went", func(t *testing.T) {
		two := steady(testgen.Replicas(2))
		in := two.input(with(two.pods(0), two.pod(1, testgen.Named("web-01")), two.pod(1), two.pod(1, testgen.Named("web-01")),
			two.pod(5), two.pod(5), two.pod(0, testgen.Named("web-x")), two.pod(0, testgen.Named("web-x")), two.pod(1)))
		want := []string{
			"Pod/web-01: the name also reads as ordinal 1, which web-1 holds; the pod is ignored",
			"Pod/web-01: the pod was listed twice; the second copy is ignored",
			"Pod/web-5: the pod was listed twice; the second copy is ignored",
			"Pod/web-x: the name is not web-<ordinal>; the pod is ignored",
			"Pod/web-x: the pod was listed twice; the second copy is ignored",
			"Pod/web-1: the pod was listed twice; the second copy is ignored",
		}
		var got []string
		for _, w := range compute(in).Warnings {
			got = append(got, w.Object+": "+w.Message)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("warnings mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("an unparsable pod does not stop the plan", func(t *testing.T) {
		plan := compute(f.input([]*corev1.Pod{f.pod(1, testgen.Named("web-x"))}))
		if diff := cmp.Diff([]string{"replicas: CreatePod web-0 at current"}, f.summary(plan)); diff != "" {
			t.Errorf("steps mismatch (-want +got):\n%s", diff)
		}
	})
}
