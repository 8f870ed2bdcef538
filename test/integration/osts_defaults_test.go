package integration

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

const minimalExtendedSet = `
apiVersion: apps.ordinal.dev/v1alpha1
kind: StatefulSet
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.8
`

// A manifest with only the required fields comes back with apps/v1's
// set-level defaults and the kind's own.
func TestAMinimalExtendedManifestGetsTheDefaults(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(minimalExtendedSet), &u.Object); err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(restConfig(200, 400))
	created, err := dyn.Resource(v1alpha1.Resource).Namespace(ns).Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := ostsclient.FromUnstructured(created)
	if err != nil {
		t.Fatal(err)
	}
	maxUnavailable := intstr.FromInt32(1)
	want := v1alpha1.StatefulSetSpec{
		Replicas:            ptr(int32(1)),
		PodManagementPolicy: appsv1.OrderedReadyPodManagement,
		UpdateStrategy: v1alpha1.StatefulSetUpdateStrategy{
			Type: v1alpha1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &v1alpha1.RollingUpdateStatefulSetStrategy{
				Partition: ptr(int32(0)), MaxUnavailable: &maxUnavailable,
				SelfHealing: v1alpha1.SelfHealingEnabled, OnFailure: v1alpha1.FailureReport, PodUpdatePolicy: v1alpha1.PodUpdateRecreate,
				PartitionMode: v1alpha1.PartitionOrdinal, RespectDisruptionBudgets: ptr(true),
			},
		},
		RevisionHistoryLimit: ptr(int32(10)),
		PersistentVolumeClaimRetentionPolicy: &v1alpha1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		},
		ProgressDeadlineSeconds:   ptr(int32(600)),
		VolumeClaimUpdateStrategy: v1alpha1.VolumeClaimUpdateStrategy{Type: v1alpha1.OnClaimDeleteVolumeClaimUpdateStrategyType},
		NodeDrainPolicy:           v1alpha1.NodeDrainMove,
	}
	got := set.Spec
	got.Selector, got.Template = nil, want.Template
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaulted spec, apart from selector and template (-want +got):\n%s", diff)
	}
	// The pod template is left as written: the controller defaults it.
	if c := set.Spec.Template.Spec.Containers[0]; c.ImagePullPolicy != "" || c.TerminationMessagePath != "" || set.Spec.Template.Spec.DNSPolicy != "" {
		t.Errorf("the API server defaulted the template: %+v", set.Spec.Template.Spec)
	}
}

// setLevel is what apps/v1 defaulting decides at the set level.
type setLevel struct {
	Replicas             *int32
	PodManagementPolicy  appsv1.PodManagementPolicyType
	UpdateType           string
	RollingUpdate        bool
	Partition            *int32
	MaxUnavailable       *intstr.IntOrString
	RevisionHistoryLimit *int32
	WhenDeleted          appsv1.PersistentVolumeClaimRetentionPolicyType
	WhenScaled           appsv1.PersistentVolumeClaimRetentionPolicyType
}

func appsLevel(s *appsv1.StatefulSet) setLevel {
	l := setLevel{Replicas: s.Spec.Replicas, PodManagementPolicy: s.Spec.PodManagementPolicy, UpdateType: string(s.Spec.UpdateStrategy.Type),
		RevisionHistoryLimit: s.Spec.RevisionHistoryLimit}
	if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		l.RollingUpdate, l.Partition, l.MaxUnavailable = true, ru.Partition, ru.MaxUnavailable
	}
	if r := s.Spec.PersistentVolumeClaimRetentionPolicy; r != nil {
		l.WhenDeleted, l.WhenScaled = r.WhenDeleted, r.WhenScaled
	}
	return l
}

// The same Go object created as apps/v1 and as the extended kind gets the
// same set-level defaults from the two API paths (apps/v1's defaulting
// code, the CRD's schema). The plane runs with MaxUnavailableStatefulSet
// on, so apps/v1 defaults maxUnavailable as the schema does.
func TestTheSchemaDefaultsTheSetAsAppsV1Does(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	two := intstr.FromString("50%")
	cases := []struct {
		name   string
		mutate func(*appsv1.StatefulSet)
	}{
		{"no replicas, no strategy", func(s *appsv1.StatefulSet) { s.Spec.Replicas = nil }},
		{"type RollingUpdate without a rollingUpdate block", func(s *appsv1.StatefulSet) {
			s.Spec.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		}},
		{"a rollingUpdate block without a type", func(s *appsv1.StatefulSet) {
			s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(2))}
		}},
		{"a percentage maxUnavailable without a partition", func(s *appsv1.StatefulSet) {
			s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &two}}
		}},
		{"OnDelete", func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType }},
		{"Parallel with half a retention policy", func(s *appsv1.StatefulSet) {
			s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
			s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := webSet(ns)
			c.mutate(set)
			dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
			apps, err := client.AppsV1().StatefulSets(ns).Create(context.Background(), set, dryRun)
			if err != nil {
				t.Fatal(err)
			}
			ext, err := extendedSets(t, ns).Create(context.Background(), extended(t, set), dryRun)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(appsLevel(apps), appsLevel(asApps(t, ext))); diff != "" {
				t.Errorf("set-level defaults (-apps/v1 +extended):\n%s", diff)
			}
		})
	}
}
