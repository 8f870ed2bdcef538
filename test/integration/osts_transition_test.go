package integration

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// update reads the set, changes it and writes it back.
func update(t *testing.T, sets ostsclient.Interface, mutate func(*v1alpha1.StatefulSet)) error {
	t.Helper()
	set, err := sets.Get(context.Background(), setName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mutate(set)
	_, err = sets.Update(context.Background(), set, metav1.UpdateOptions{})
	return err
}

// The transition rules: what a set may not change once created, as in
// apps/v1, while the changes apps/v1 allows still go through, and so do
// changes to the claim templates, which apps/v1 refuses.
func TestImmutableFieldsOfAnExtendedSetCannotChange(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	sets := extendedSets(t, ns)
	if _, err := sets.Create(context.Background(), extended(t, webSet(ns, withClaims())), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	refused := []invalidCase{
		{"a new selector", func(s *v1alpha1.StatefulSet) {
			s.Spec.Selector.MatchLabels["tier"], s.Spec.Template.Labels["tier"] = "web", "web"
		}, ruleError("spec.selector", "spec.selector is immutable")},
		{"a new serviceName", func(s *v1alpha1.StatefulSet) { s.Spec.ServiceName = "other" },
			ruleError("spec.serviceName", "spec.serviceName is immutable")},
		{"no serviceName", func(s *v1alpha1.StatefulSet) { s.Spec.ServiceName = "" },
			ruleError("spec.serviceName", "spec.serviceName is immutable")},
		{"a second claim template of the same name", func(s *v1alpha1.StatefulSet) {
			s.Spec.VolumeClaimTemplates = append(s.Spec.VolumeClaimTemplates, *s.Spec.VolumeClaimTemplates[0].DeepCopy())
		}, ruleError("spec.volumeClaimTemplates", "spec.volumeClaimTemplates names must be unique")},
	}
	for _, c := range refused {
		if err := update(t, sets, c.mutate); err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got: %v\nwant: %s", c.name, err, c.want)
		}
	}
	// In order: removing the claim templates comes after growing them.
	allowed := []struct {
		name   string
		mutate func(*v1alpha1.StatefulSet)
	}{
		{"replicas", func(s *v1alpha1.StatefulSet) { s.Spec.Replicas = ptr(int32(5)) }},
		{"the template", func(s *v1alpha1.StatefulSet) {
			s.Spec.Template.Spec.Containers[0].Image = imageNew
			s.Spec.Template.Labels["tier"] = "web"
		}},
		{"the strategy", func(s *v1alpha1.StatefulSet) { rollingUpdateOf(s).OnFailure = v1alpha1.FailurePause }},
		{"the retention policy", func(s *v1alpha1.StatefulSet) { s.Spec.PersistentVolumeClaimRetentionPolicy.WhenScaled = "Delete" }},
		{"minReadySeconds", func(s *v1alpha1.StatefulSet) { s.Spec.MinReadySeconds = 5 }},
		{"revisionHistoryLimit", func(s *v1alpha1.StatefulSet) { s.Spec.RevisionHistoryLimit = ptr(int32(3)) }},
		{"ordinals", func(s *v1alpha1.StatefulSet) { s.Spec.Ordinals = &v1alpha1.StatefulSetOrdinals{Start: 1} }},
		{"the progress deadline", func(s *v1alpha1.StatefulSet) { s.Spec.ProgressDeadlineSeconds = ptr(int32(60)) }},
		{"a larger claim template", func(s *v1alpha1.StatefulSet) {
			s.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
		}},
		{"the claim update strategy", func(s *v1alpha1.StatefulSet) {
			s.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
		}},
		{"no claim templates", func(s *v1alpha1.StatefulSet) { s.Spec.VolumeClaimTemplates = nil }},
	}
	for _, c := range allowed {
		if err := update(t, sets, c.mutate); err != nil {
			t.Errorf("changing %s: %v", c.name, err)
		}
	}
}

// setStatus writes the set's status through the status subresource, as the
// controller does.
func setStatus(t *testing.T, sets ostsclient.Interface, status v1alpha1.StatefulSetStatus) {
	t.Helper()
	set, err := sets.Get(context.Background(), setName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set.Status = status
	if _, err := sets.UpdateStatus(context.Background(), set, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func policyTo(p appsv1.PodManagementPolicyType) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { s.Spec.PodManagementPolicy = p }
}

// Unlike apps/v1, the kind lets podManagementPolicy change, but only while
// no rollout is in progress: the status says every pod runs the update
// revision.
func TestPodManagementPolicyChangesOnlyWhenNoRolloutIsInProgress(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	sets := extendedSets(t, ns)
	if _, err := sets.Create(context.Background(), extended(t, webSet(ns)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := update(t, sets, policyTo(appsv1.ParallelPodManagement)); err != nil {
		t.Fatalf("a set without status (no controller has seen it yet): %v", err)
	}
	refusal := ruleError("spec.podManagementPolicy",
		"spec.podManagementPolicy may change only when no rollout is in progress (status.currentRevision equals status.updateRevision and every pod is updated)")
	for _, c := range []struct {
		name   string
		status v1alpha1.StatefulSetStatus
	}{
		{"two revisions", v1alpha1.StatefulSetStatus{Replicas: 3, CurrentReplicas: 2, UpdatedReplicas: 1, CurrentRevision: "web-1", UpdateRevision: "web-2"}},
		{"one revision, not every pod updated yet", v1alpha1.StatefulSetStatus{Replicas: 3, UpdatedReplicas: 2, CurrentRevision: "web-2", UpdateRevision: "web-2"}},
		{"no current revision yet", v1alpha1.StatefulSetStatus{Replicas: 1, UpdateRevision: "web-2"}},
	} {
		setStatus(t, sets, c.status)
		if err := update(t, sets, policyTo(appsv1.OrderedReadyPodManagement)); err == nil || err.Error() != refusal {
			t.Errorf("during a rollout (%s):\n got: %v\nwant: %s", c.name, err, refusal)
		}
	}
	setStatus(t, sets, v1alpha1.StatefulSetStatus{Replicas: 3, CurrentReplicas: 3, UpdatedReplicas: 3, CurrentRevision: "web-2", UpdateRevision: "web-2"})
	if err := update(t, sets, policyTo(appsv1.OrderedReadyPodManagement)); err != nil {
		t.Errorf("with the rollout complete: %v", err)
	}
	// Other changes go through during a rollout.
	setStatus(t, sets, v1alpha1.StatefulSetStatus{Replicas: 3, CurrentReplicas: 2, UpdatedReplicas: 1, CurrentRevision: "web-2", UpdateRevision: "web-3"})
	if err := update(t, sets, func(s *v1alpha1.StatefulSet) { s.Spec.Replicas = ptr(int32(4)) }); err != nil {
		t.Errorf("scaling during a rollout: %v", err)
	}
}
