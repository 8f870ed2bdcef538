package migrate

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func hazardSet(t *testing.T) *v1alpha1.StatefulSet {
	t.Helper()
	set, err := toExtended(appsSet())
	if err != nil {
		t.Fatal(err)
	}
	set.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "www"}}}
	return set
}

func hazardPod(name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func boundClaim(name, request, capacity string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}}
	c.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(request)}
	c.Status.Phase = corev1.ClaimBound
	c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(capacity)}
	return c
}

func TestAMigrationToAppsV1ThatWouldActOnPodsOrClaimsIsNamed(t *testing.T) {
	threePods := func() []*corev1.Pod {
		return []*corev1.Pod{hazardPod("web-0", nil), hazardPod("web-1", nil), hazardPod("web-2", nil)}
	}
	tests := []struct {
		name   string
		change func(*v1alpha1.StatefulSet, []*corev1.Pod, map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod
		want   []string
	}{
		{"a set at rest", func(_ *v1alpha1.StatefulSet, pods []*corev1.Pod, _ map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			return pods
		}, nil},
		{"a reserved ordinal: apps/v1 creates it and deletes the last pod with its claims", func(s *v1alpha1.StatefulSet, _ []*corev1.Pod, _ map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			s.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromInt32(1), intstr.FromString("7-9")}
			s.Spec.PersistentVolumeClaimRetentionPolicy = &v1alpha1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: "Retain", WhenScaled: "Delete"}
			return []*corev1.Pod{hazardPod("web-0", nil), hazardPod("web-2", nil), hazardPod("web-3", nil)}
		}, []string{
			"spec.reserveOrdinals reserves web-1, which apps/v1 would create",
			"pod web-3 is outside apps/v1's ordinals 0 to 2: apps/v1 would delete it and, under whenScaled Delete, its claims without running any hook",
		}},
		{"a reserved range inside the ordinals", func(s *v1alpha1.StatefulSet, pods []*corev1.Pod, _ map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			s.Spec.Replicas = ptr.To[int32](5)
			s.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromString("3-9")}
			return pods
		}, []string{"spec.reserveOrdinals reserves web-3 to web-4, which apps/v1 would create (its pods are ordinals 0 to 4)"}},
		{"an offline member: apps/v1 starts its pod at once", func(s *v1alpha1.StatefulSet, _ []*corev1.Pod, _ map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			s.Spec.OfflineOrdinals = []intstr.IntOrString{intstr.FromInt32(1), intstr.FromString("5-6")}
			return []*corev1.Pod{hazardPod("web-0", nil), hazardPod("web-2", nil)}
		}, []string{"spec.offlineOrdinals takes web-1 offline, which apps/v1 would start again at once (its pods are ordinals 0 to 2)"}},
		{"a pod below spec.ordinals.start", func(s *v1alpha1.StatefulSet, pods []*corev1.Pod, _ map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			s.Spec.Ordinals = &v1alpha1.StatefulSetOrdinals{Start: 1}
			return pods
		}, []string{"pod web-0 is outside apps/v1's ordinals 1 to 3: apps/v1 would delete it without running any hook"}},
		{"hooks pending and failed; one done", func(_ *v1alpha1.StatefulSet, pods []*corev1.Pod, _ map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			pods[0].Labels = map[string]string{v1alpha1.PreUpdateHookLabel: v1alpha1.HookPending}
			pods[1].Labels = map[string]string{v1alpha1.PreDeleteHookLabel: v1alpha1.HookFailed}
			pods[2].Labels = map[string]string{v1alpha1.PreUpdateHookLabel: v1alpha1.HookDone}
			return pods
		}, []string{
			"pod web-0's preUpdate hook is Pending (label apps.ordinal.dev/pre-update): apps/v1 would not wait for it",
			"pod web-1's preDelete hook is Failed (label apps.ordinal.dev/pre-delete)",
		}},
		{"an update in place under way; one finished", func(_ *v1alpha1.StatefulSet, pods []*corev1.Pod, _ map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			for i, status := range []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionTrue} {
				pods[i].Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: v1alpha1.InPlaceReadinessGate}}
				pods[i].Status.Conditions = []corev1.PodCondition{{Type: v1alpha1.InPlaceReadinessGate, Status: status}}
			}
			return pods
		}, []string{"pod web-0 is out of service: its readiness gate"}},
		{"a member joining", func(_ *v1alpha1.StatefulSet, pods []*corev1.Pod, _ map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			pods[1].Labels = map[string]string{v1alpha1.PostCreateHookLabel: v1alpha1.HookPending}
			pods[1].Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: v1alpha1.InPlaceReadinessGate}}
			return pods
		}, []string{
			"pod web-1's postCreate hook is Pending (label apps.ordinal.dev/post-create): apps/v1 would not wait for it",
			"pod web-1 is out of service: its readiness gate",
		}},
		{"claims being resized or given a new class", func(_ *v1alpha1.StatefulSet, pods []*corev1.Pod, claims map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			claims["www-web-0"] = boundClaim("www-web-0", "2Gi", "1Gi")
			claims["www-web-1"] = boundClaim("www-web-1", "1Gi", "1Gi")
			claims["www-web-1"].Status.Conditions = []corev1.PersistentVolumeClaimCondition{{Type: corev1.PersistentVolumeClaimFileSystemResizePending, Status: corev1.ConditionTrue}}
			claims["www-web-2"] = boundClaim("www-web-2", "1Gi", "1Gi")
			claims["www-web-2"].Status.ModifyVolumeStatus = &corev1.ModifyVolumeStatus{TargetVolumeAttributesClassName: "fast", Status: corev1.PersistentVolumeClaimModifyVolumeInProgress}
			claims["www-other-0"] = boundClaim("www-other-0", "2Gi", "1Gi")
			return pods
		}, []string{
			"claim www-web-0 is being resized (requests 2Gi, capacity 1Gi)",
			"claim www-web-1 is being changed (condition FileSystemResizePending)",
			"claim www-web-2 is changing its volume attributes class (to fast, InProgress)",
		}},
		{"a rollout the failure policy rolled back and holds", func(s *v1alpha1.StatefulSet, pods []*corev1.Pod, _ map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			s.Status.Hold = &v1alpha1.RolloutHold{ID: "web-b@1", Action: v1alpha1.HoldRolledBack, FailedRevision: "web-b", Revision: "web-a", Reason: "no progress"}
			return pods
		}, []string{"the rollout of the spec's revision web-b failed (no progress) and the failure policy runs revision web-a instead (status.hold web-b@1): apps/v1 would roll that template out at once"}},
		{"a hold the release annotation names is ending", func(s *v1alpha1.StatefulSet, pods []*corev1.Pod, _ map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			s.Status.Hold = &v1alpha1.RolloutHold{ID: "web-b@1", Action: v1alpha1.HoldPaused, FailedRevision: "web-b", Revision: "web-b"}
			s.Annotations = map[string]string{v1alpha1.ReleaseHoldAnnotation: "web-b@1"}
			return pods
		}, nil},
		{"settled claims", func(_ *v1alpha1.StatefulSet, pods []*corev1.Pod, claims map[string]*corev1.PersistentVolumeClaim) []*corev1.Pod {
			claims["www-web-0"] = boundClaim("www-web-0", "1Gi", "2Gi")
			claims["www-web-1"] = boundClaim("www-web-1", "1Gi", "1Gi")
			claims["www-web-1"].Status.Conditions = []corev1.PersistentVolumeClaimCondition{{Type: corev1.PersistentVolumeClaimResizing, Status: corev1.ConditionFalse}}
			return pods
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, claims := hazardSet(t), map[string]*corev1.PersistentVolumeClaim{}
			pods := tt.change(set, threePods(), claims)
			got := hazards(set, pods, claims)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d reasons, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("reason %d:\n got %s\nwant it to start %s", i, got[i], w)
				}
			}
		})
	}
}

func TestAnUnsafeMigrationSaysWhatToChangeAndThatForceWillNotDo(t *testing.T) {
	err := &Unsafe{Ref: "statefulset.apps.ordinal.dev/web", Reasons: []string{"a", "b"}, Overridable: []string{"c"}}
	want := `not migrating statefulset.apps.ordinal.dev/web, not even with --force:
  - a
  - b
nothing was changed; change those first and migrate again
also refused, unless --force:
  - c`
	if err.Error() != want {
		t.Errorf("message:\n%s\nwant:\n%s", err.Error(), want)
	}
}
