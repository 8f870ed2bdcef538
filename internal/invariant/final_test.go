package invariant

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func convergedSnapshot() Snapshot {
	set := mkSet(2)
	set.Status = appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
		CurrentReplicas: 2, UpdatedReplicas: 2, CurrentRevision: "web-r1", UpdateRevision: "web-r1"}
	return Snapshot{
		Now:       t0.Add(60e9),
		Sets:      []appsv1.StatefulSet{*set},
		Pods:      []corev1.Pod{*mkPod(0, "a", ready), *mkPod(1, "a", ready)},
		Revisions: []appsv1.ControllerRevision{*mkRev("web-r1")},
	}
}

func TestCheckFinal(t *testing.T) {
	if v := CheckFinal(convergedSnapshot(), Options{}); len(v) != 0 {
		t.Fatalf("a consistent status was reported: %v", v)
	}
	t.Run("a readyReplicas the pods disagree with breaks the status rule", func(t *testing.T) {
		snap := convergedSnapshot()
		snap.Sets[0].Status.ReadyReplicas = 1
		if v := CheckFinal(snap, Options{}); len(v) != 1 || v[0].Rule != RuleStatus {
			t.Errorf("got %v, want one %s violation", v, RuleStatus)
		}
	})
	t.Run("a status naming a missing revision breaks the status rule", func(t *testing.T) {
		snap := convergedSnapshot()
		snap.Revisions = nil
		if v := CheckFinal(snap, Options{}); len(v) == 0 {
			t.Errorf("got no violation")
		}
	})
}

func TestMarkers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-0"},
		Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: dir}}}}
	claim := mkClaim(0)
	claim.Status.Phase = corev1.ClaimBound
	client := fake.NewSimpleClientset(pv, claim)
	m := NewMarkers(client, ns)
	if err := m.Mark(ctx); err != nil || m.Count() != 1 {
		t.Fatalf("Mark: %v, %d marked", err, m.Count())
	}
	if v, err := m.Verify(ctx); err != nil || len(v) != 0 {
		t.Fatalf("an intact marker was reported: %v %v", v, err)
	}
	t.Run("a lost marker breaks volume data", func(t *testing.T) {
		if err := os.Remove(filepath.Join(dir, MarkerFile)); err != nil {
			t.Fatal(err)
		}
		v, err := m.Verify(ctx)
		if err != nil || len(v) != 1 || v[0].Rule != RuleVolumeData {
			t.Errorf("got %v %v, want one %s violation", v, err, RuleVolumeData)
		}
	})
}
