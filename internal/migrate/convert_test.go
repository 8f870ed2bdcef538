package migrate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func appsSet() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "shop", UID: "u1", ResourceVersion: "7", Generation: 3,
			Labels:      map[string]string{"tier": "db"},
			Annotations: map[string]string{"team": "storage", lastApplied: `{"apiVersion":"apps/v1"}`},
		},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    ptr.To[int32](3),
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			ServiceName: "web",
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
				Type:          appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](1)},
			},
			MinReadySeconds: 5,
		},
	}
}

func TestAnAppsV1SetBecomesTheSameExtendedSet(t *testing.T) {
	got, err := toExtended(appsSet())
	if err != nil {
		t.Fatal(err)
	}
	want := metav1.ObjectMeta{Name: "web", Namespace: "shop", Labels: map[string]string{"tier": "db"}, Annotations: map[string]string{"team": "storage"}}
	if diff := cmp.Diff(want, got.ObjectMeta); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	ru := got.Spec.UpdateStrategy.RollingUpdate
	if got.Spec.MinReadySeconds != 5 || ru == nil || *ru.Partition != 1 || ru.Paused || ru.OnFailure != "" || got.Spec.ProgressDeadlineSeconds != nil {
		t.Errorf("spec %+v, rolling update %+v", got.Spec, ru)
	}
	if extendedOnly(got) != nil {
		t.Errorf("a converted apps/v1 set has extended-only settings: %q", extendedOnly(got))
	}
	if diff := cmp.Diff(appsSet().Spec.Template, got.Spec.Template); diff != "" {
		t.Errorf("template (-apps/v1 +extended):\n%s", diff)
	}
}

func TestAnExtendedSetBecomesAnAppsV1SetWithItsSpec(t *testing.T) {
	ext, err := toExtended(appsSet())
	if err != nil {
		t.Fatal(err)
	}
	back := toAppsV1(ext)
	if back.APIVersion != "apps/v1" || back.Kind != "StatefulSet" || back.Annotations["team"] != "storage" {
		t.Errorf("type %+v, annotations %v", back.TypeMeta, back.Annotations)
	}
	if *back.Spec.UpdateStrategy.RollingUpdate.Partition != 1 || back.Spec.MinReadySeconds != 5 || back.Spec.Template.Spec.Containers[0].Image != "nginx" {
		t.Errorf("spec %+v", back.Spec)
	}
	ext.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RecreateStatefulSetStrategyType}
	if got := toAppsV1(ext).Spec.UpdateStrategy.Type; got != appsv1.RollingUpdateStatefulSetStrategyType {
		t.Errorf("Recreate became %s, want RollingUpdate", got)
	}
}

func TestExtendedOnlySettingsAreNamedUnlessAtTheirDefaults(t *testing.T) {
	tests := []struct {
		name   string
		change func(*v1alpha1.StatefulSet)
		want   []string
	}{
		{"defaults written out", func(s *v1alpha1.StatefulSet) {
			s.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
			s.Spec.UpdateStrategy.RollingUpdate.SelfHealing = v1alpha1.SelfHealingEnabled
			s.Spec.UpdateStrategy.RollingUpdate.OnFailure = v1alpha1.FailureReport
		}, nil},
		{"recreate", func(s *v1alpha1.StatefulSet) {
			s.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RecreateStatefulSetStrategyType}
		}, []string{"spec.updateStrategy.type is Recreate (apps/v1 has RollingUpdate and OnDelete; it would become RollingUpdate)"}},
		{"every rolling update setting", func(s *v1alpha1.StatefulSet) {
			s.Spec.ProgressDeadlineSeconds = ptr.To[int32](60)
			ru := s.Spec.UpdateStrategy.RollingUpdate
			ru.Paused, ru.SelfHealing, ru.OnFailure = true, v1alpha1.SelfHealingDisabled, v1alpha1.FailurePause
		}, []string{
			"spec.progressDeadlineSeconds is 60 (default 600; apps/v1 has no progress deadline)",
			"spec.updateStrategy.rollingUpdate.paused is true (resume the rollout first)",
			"spec.updateStrategy.rollingUpdate.selfHealing is Disabled (default Enabled; apps/v1 leaves broken pods of an old revision to the rolling update)",
			"spec.updateStrategy.rollingUpdate.onFailure is Pause (default Report; apps/v1 neither pauses nor rolls back a failed rollout)",
		}},
		{"reserved ordinals, hooks, order, updates in place and claim updates", func(s *v1alpha1.StatefulSet) {
			s.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromInt32(1)}
			s.Spec.Lifecycle = &v1alpha1.Lifecycle{PreDelete: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}}}
			s.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
			ru := s.Spec.UpdateStrategy.RollingUpdate
			ru.Priority = []v1alpha1.UpdatePriorityRule{{Weight: 10}}
			ru.PodUpdatePolicy, ru.InPlace = v1alpha1.PodUpdateInPlaceIfPossible, &v1alpha1.InPlaceUpdate{GracePeriodSeconds: 5, ResizeTimeoutSeconds: 120}
		}, []string{
			"spec.volumeClaimUpdateStrategy is type InPlace (apps/v1 never changes a claim once made: later changes of the claim templates would not reach the claims)",
			"spec.reserveOrdinals is [1] (apps/v1 numbers pods from spec.ordinals.start without gaps: a later scale-up would create the reserved ordinals)",
			"spec.lifecycle is [preDelete] (apps/v1 has no lifecycle hooks: its deletes and updates would not wait for them)",
			`spec.updateStrategy.rollingUpdate.priority is [{"weight":10,"selector":{}}] (apps/v1 updates pods by ordinal, highest first, whatever their labels)`,
			"spec.updateStrategy.rollingUpdate.podUpdatePolicy is InPlaceIfPossible (default Recreate; apps/v1 recreates every pod it updates)",
			`spec.updateStrategy.rollingUpdate.inPlace is {"gracePeriodSeconds":5,"resizeTimeoutSeconds":120} (apps/v1 has no updates in place)`,
		}},
		{"roles and a switchover", func(s *v1alpha1.StatefulSet) {
			s.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{{Name: "leader", Quorum: true, Exclusive: true}}}
			s.Spec.Lifecycle = &v1alpha1.Lifecycle{Switchover: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}}}
		}, []string{
			"spec.lifecycle is [switchover] (apps/v1 has no lifecycle hooks: its deletes and updates would not wait for them)",
			`spec.roles is {"labelKey":"role","values":[{"name":"leader","quorum":true,"exclusive":true}]} (apps/v1 knows no roles: it would update a leader like any pod, with no quorum kept and no switchover)`,
		}},
		{"offline members and member hooks", func(s *v1alpha1.StatefulSet) {
			s.Spec.OfflineOrdinals = []intstr.IntOrString{intstr.FromString("1-2")}
			s.Spec.Lifecycle = &v1alpha1.Lifecycle{PostCreate: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}},
				PostUpdate: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}}}
		}, []string{
			`spec.offlineOrdinals is ["1-2"] (apps/v1 has no offline members: it would start their pods once it scales up to them)`,
			"spec.lifecycle is [postCreate postUpdate] (apps/v1 has no lifecycle hooks: its deletes and updates would not wait for them)",
		}},
		{"overrides", func(s *v1alpha1.StatefulSet) {
			s.Spec.Overrides = []v1alpha1.OrdinalOverride{{Name: "big", Ordinals: []intstr.IntOrString{intstr.FromInt32(0)}}, {Name: "mid", Ordinals: []intstr.IntOrString{intstr.FromString("1-2")}}}
		}, []string{"spec.overrides is big, mid (apps/v1 has one template for every pod: the overridden pods would be replaced with the set's template)"}},
		{"claim and in-place defaults written out", func(s *v1alpha1.StatefulSet) {
			s.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.OnClaimDeleteVolumeClaimUpdateStrategyType
			ru := s.Spec.UpdateStrategy.RollingUpdate
			ru.PodUpdatePolicy, ru.InPlace = v1alpha1.PodUpdateRecreate, &v1alpha1.InPlaceUpdate{ResizeTimeoutSeconds: 120}
			ru.PartitionMode = v1alpha1.PartitionOrdinal
		}, nil},
		{"topology and a count partition", func(s *v1alpha1.StatefulSet) {
			ru := s.Spec.UpdateStrategy.RollingUpdate
			ru.Topology = &v1alpha1.RolloutTopology{Key: v1alpha1.DefaultTopologyKey, MaxUnavailablePerDomain: 1}
			ru.PartitionMode = v1alpha1.PartitionCount
		}, []string{
			`spec.updateStrategy.rollingUpdate.topology is {"key":"topology.kubernetes.io/zone","maxUnavailablePerDomain":1} (apps/v1 updates pods whatever their zone, with no budget per domain)`,
			"spec.updateStrategy.rollingUpdate.partitionMode is Count (default Ordinal; apps/v1 reads the partition as an ordinal, so other pods would be kept at the old revision)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := toExtended(appsSet())
			if err != nil {
				t.Fatal(err)
			}
			tt.change(set)
			if diff := cmp.Diff(tt.want, extendedOnly(set)); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
		})
	}
}

// The exported conversions are the ones a migration makes: an apps/v1 set
// goes to the extended kind with no extended-only setting, and back with
// nothing dropped; an extended-only setting is named when apps/v1 drops it.
func TestTheExportedConversionsNameWhatApps1Drops(t *testing.T) {
	ext, err := ToExtended(appsSet())
	if err != nil {
		t.Fatal(err)
	}
	back, dropped := ToAppsV1(ext)
	if dropped != nil {
		t.Errorf("a converted apps/v1 set drops %q going back", dropped)
	}
	if back.Spec.Template.Spec.Containers[0].Image != "nginx" || *back.Spec.Replicas != 3 {
		t.Errorf("the round trip changed the spec: %+v", back.Spec)
	}
	ext.Spec.UpdateStrategy.RollingUpdate.OnFailure = v1alpha1.FailureRollback
	if _, dropped := ToAppsV1(ext); len(dropped) != 1 || !strings.Contains(dropped[0], "onFailure is Rollback") {
		t.Errorf("dropped = %q, want onFailure named", dropped)
	}
}

// Respecting PodDisruptionBudgets, the default, is a protection apps/v1
// does not give: it is stated as lost, not refused by the spec alone;
// false, which is what apps/v1 does, is neither.
func TestRespectingBudgetsIsStatedAsLost(t *testing.T) {
	lost := "spec.updateStrategy.rollingUpdate.respectDisruptionBudgets is true (default true; apps/v1 deletes the pods of its rolling update without asking PodDisruptionBudgets)"
	for _, tt := range []struct {
		name  string
		value *bool
		want  []string
	}{
		{"unset, the default", nil, []string{lost}},
		{"true", ptr.To(true), []string{lost}},
		{"false", ptr.To(false), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set, err := toExtended(appsSet())
			if err != nil {
				t.Fatal(err)
			}
			set.Spec.UpdateStrategy.RollingUpdate.RespectDisruptionBudgets = tt.value
			set.Spec.NodeDrainPolicy = v1alpha1.NodeDrainIgnore // its own loss, below
			if got := extendedOnly(set); got != nil {
				t.Errorf("refused by the spec alone: %q", got)
			}
			if diff := cmp.Diff(tt.want, losses(set)); diff != "" {
				t.Errorf("losses (-want +got):\n%s", diff)
			}
		})
	}
}

// Moving pods off drained nodes, the default, is a protection apps/v1
// does not give: it is stated as lost, not refused; Ignore, which is
// what apps/v1 does, is neither.
func TestMovingOffDrainedNodesIsStatedAsLost(t *testing.T) {
	lost := "spec.nodeDrainPolicy is Move (default Move; apps/v1 leaves the pods of a drained node, or of an eviction request, to the drain and the Eviction API: no switchover, preDelete hook or quorum before they are evicted)"
	for _, tt := range []struct {
		name   string
		policy v1alpha1.NodeDrainPolicy
		want   []string
	}{
		{"unset, the default", "", []string{lost}},
		{"Move", v1alpha1.NodeDrainMove, []string{lost}},
		{"Ignore", v1alpha1.NodeDrainIgnore, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set, err := toExtended(appsSet())
			if err != nil {
				t.Fatal(err)
			}
			set.Spec.UpdateStrategy.RollingUpdate.RespectDisruptionBudgets = ptr.To(false)
			set.Spec.NodeDrainPolicy = tt.policy
			if got := extendedOnly(set); got != nil {
				t.Errorf("refused by the spec alone: %q", got)
			}
			if diff := cmp.Diff(tt.want, losses(set)); diff != "" {
				t.Errorf("losses (-want +got):\n%s", diff)
			}
		})
	}
}
