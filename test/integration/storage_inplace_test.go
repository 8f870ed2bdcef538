package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/conflict"
)

// The embedded plane's provisioner, which also resizes and modifies.
const simDriver = "ordinal.dev/hostpath"

// inPlaceSet is a three-pod extended set whose www claims (1Gi) follow
// their template in place; change adjusts it before it is created.
func inPlaceSet(t *testing.T, ns string, change ...func(*v1alpha1.StatefulSet)) *v1alpha1.StatefulSet {
	t.Helper()
	return asExtended(t, webSet(ns, replicas(3), withClaims()), append([]func(*v1alpha1.StatefulSet){func(s *v1alpha1.StatefulSet) {
		s.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
	}}, change...)...)
}

// changeTemplates reads the set, changes its claim templates and writes it
// back, again when the controller's status write got in between.
func changeTemplates(t *testing.T, ns string, change func([]corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim) {
	t.Helper()
	changeSet(t, ns, func(s *v1alpha1.StatefulSet) { s.Spec.VolumeClaimTemplates = change(s.Spec.VolumeClaimTemplates) })
}

// rollTemplates changes the set's claim templates and waits until a new
// revision has rolled out and the claims have settled.
func rollTemplates(t *testing.T, ns string, before *v1alpha1.StatefulSet,
	change func([]corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim,
) *v1alpha1.StatefulSet {
	t.Helper()
	changeTemplates(t, ns, change)
	return waitExtended(t, ns, 3*time.Minute, "the new templates rolled out", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == before.Status.UpdateRevision {
			return fmt.Errorf("no new revision yet")
		}
		return claimsSettled(s)
	})
}

// changeSet is update, retried on conflict.
func changeSet(t *testing.T, ns string, mutate func(*v1alpha1.StatefulSet)) {
	t.Helper()
	err := conflict.Retry(func() error { return update(t, extendedSets(t, ns), mutate) })
	if err != nil {
		t.Fatalf("changing the set: %v", err)
	}
}

func growTo(q string) func([]corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim {
	return func(ts []corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim {
		ts[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(q)
		return ts
	}
}

// claimsSettled accepts a set whose rollout is complete and whose claims
// all match their templates, Ready.
func claimsSettled(set *v1alpha1.StatefulSet) error {
	if err := extendedSettled(set); err != nil {
		return err
	}
	if len(set.Status.VolumeClaims) != len(set.Spec.VolumeClaimTemplates) {
		return fmt.Errorf("volumeClaims %+v for %d templates", set.Status.VolumeClaims, len(set.Spec.VolumeClaimTemplates))
	}
	for _, c := range set.Status.VolumeClaims {
		if c.MatchingReplicas != *set.Spec.Replicas || c.ReadyReplicas != *set.Spec.Replicas {
			return fmt.Errorf("volumeClaims %+v", set.Status.VolumeClaims)
		}
	}
	return nil
}

// checkClaims checks each www claim of the set: its capacity, and that it
// names the set's update revision.
func checkClaims(t *testing.T, ns string, set *v1alpha1.StatefulSet, capacity string) {
	t.Helper()
	for ord := range 3 {
		name := fmt.Sprintf("www-%s-%d", setName, ord)
		c, ok := getClaim(t, ns, name)
		if !ok {
			t.Errorf("claim %s is gone", name)
			continue
		}
		got := c.Status.Capacity[corev1.ResourceStorage]
		if got.Cmp(resource.MustParse(capacity)) != 0 || c.Labels[v1alpha1.ClaimRevisionLabel] != set.Status.UpdateRevision {
			t.Errorf("claim %s: capacity %s, claim-revision %q; want %s and %s", name, got.String(), c.Labels[v1alpha1.ClaimRevisionLabel], capacity, set.Status.UpdateRevision)
		}
	}
}

// Growing only the template's size grows every claim, pod by pod, and no
// pod restarts: each keeps its UID and moves to the new revision.
func TestInPlaceExpandAloneRestartsNoPod(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, inPlaceSet(t, ns))
	before := waitExtended(t, ns, 2*time.Minute, "3 ready replicas", claimsSettled)
	uids := podUIDs(t, ns)
	set := rollTemplates(t, ns, before, growTo("2Gi"))
	checkClaims(t, ns, set, "2Gi")
	for name, uid := range podUIDs(t, ns) {
		if uids[name] != uid {
			t.Errorf("pod %s was recreated (UID %s, was %s)", name, uid, uids[name])
		}
	}
}

// Growing the size together with the pod template grows each pod's claims
// first, then recreates the pod.
func TestInPlaceExpandWhileRolling(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, inPlaceSet(t, ns))
	waitExtended(t, ns, 2*time.Minute, "3 ready replicas", claimsSettled)
	uids := podUIDs(t, ns)
	changeSet(t, ns, func(s *v1alpha1.StatefulSet) {
		s.Spec.Template.Spec.Containers[0].Image = imageNew
		s.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	})
	set := waitExtended(t, ns, 4*time.Minute, "pods and claims updated", func(s *v1alpha1.StatefulSet) error {
		if s.Spec.Template.Spec.Containers[0].Image != imageNew || s.Status.UpdatedReplicas != 3 {
			return fmt.Errorf("rolling")
		}
		return claimsSettled(s)
	})
	checkClaims(t, ns, set, "2Gi")
	for name, uid := range podUIDs(t, ns) {
		if uids[name] == uid {
			t.Errorf("pod %s kept its UID though its template changed", name)
		}
	}
}

// A new volumeAttributesClassName reaches every claim without a restart.
func TestInPlaceChangesTheAttributesClass(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	vac := &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-fast"}, DriverName: simDriver, Parameters: map[string]string{"tier": "fast"}}
	if _, err := client.StorageV1().VolumeAttributesClasses().Create(context.Background(), vac, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.StorageV1().VolumeAttributesClasses().Delete(context.Background(), vac.Name, metav1.DeleteOptions{})
	})
	createExtended(t, inPlaceSet(t, ns))
	waitExtended(t, ns, 2*time.Minute, "3 ready replicas", claimsSettled)
	uids := podUIDs(t, ns)
	changeTemplates(t, ns, func(ts []corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim {
		ts[0].Spec.VolumeAttributesClassName = &vac.Name
		return ts
	})
	waitExtended(t, ns, 3*time.Minute, "claims in the new class", func(s *v1alpha1.StatefulSet) error {
		if s.Spec.VolumeClaimTemplates[0].Spec.VolumeAttributesClassName == nil {
			return fmt.Errorf("template not changed yet")
		}
		return claimsSettled(s)
	})
	for ord := range 3 {
		c, _ := getClaim(t, ns, fmt.Sprintf("www-%s-%d", setName, ord))
		if c == nil || c.Status.CurrentVolumeAttributesClassName == nil || *c.Status.CurrentVolumeAttributesClassName != vac.Name {
			t.Errorf("claim of ordinal %d: %+v", ord, c)
		}
	}
	for name, uid := range podUIDs(t, ns) {
		if uids[name] != uid {
			t.Errorf("pod %s was recreated", name)
		}
	}
}

func podHasVolume(p *corev1.Pod, name string) bool {
	for _, v := range p.Spec.Volumes {
		if v.Name == name {
			return true
		}
	}
	return false
}

// A template added to a live set gets a claim for every pod, and each pod
// mounts it once the rolling update recreates it; removing the template
// recreates the pods without it and leaves its claims (Retain).
func TestInPlaceAddsAndRemovesATemplate(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, inPlaceSet(t, ns))
	waitExtended(t, ns, 2*time.Minute, "3 ready replicas", claimsSettled)
	changeTemplates(t, ns, func(ts []corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim {
		logs := *ts[0].DeepCopy()
		logs.Name = "logs"
		return append(ts, logs)
	})
	waitExtended(t, ns, 4*time.Minute, "every pod mounting logs", func(s *v1alpha1.StatefulSet) error {
		if len(s.Spec.VolumeClaimTemplates) != 2 {
			return fmt.Errorf("template not added yet")
		}
		for _, p := range listPods(t, ns) {
			if !podHasVolume(&p, "logs") {
				return fmt.Errorf("pod %s has no logs volume", p.Name)
			}
		}
		return claimsSettled(s)
	})
	changeTemplates(t, ns, func(ts []corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim { return ts[:1] })
	waitExtended(t, ns, 4*time.Minute, "no pod mounting logs", func(s *v1alpha1.StatefulSet) error {
		if len(s.Spec.VolumeClaimTemplates) != 1 {
			return fmt.Errorf("template not removed yet")
		}
		for _, p := range listPods(t, ns) {
			if podHasVolume(&p, "logs") {
				return fmt.Errorf("pod %s still mounts logs", p.Name)
			}
		}
		return claimsSettled(s)
	})
	for ord := range 3 {
		if _, ok := getClaim(t, ns, fmt.Sprintf("logs-%s-%d", setName, ord)); !ok {
			t.Errorf("claim logs-%s-%d was deleted; the retention policy is Retain", setName, ord)
		}
	}
}

// A smaller template is reported and not applied: the claims keep their
// size, the rollout completes without a restart, and the claims count as
// matching.
func TestInPlaceRefusesToShrink(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, inPlaceSet(t, ns))
	before := waitExtended(t, ns, 2*time.Minute, "3 ready replicas", claimsSettled)
	uids := podUIDs(t, ns)
	set := rollTemplates(t, ns, before, growTo("512Mi"))
	hasEvent(t, ns, "ClaimShrinkRefused", "storage never shrinks")
	checkClaims(t, ns, set, "1Gi")
	for name, uid := range podUIDs(t, ns) {
		if uids[name] != uid {
			t.Errorf("pod %s was recreated", name)
		}
	}
}

// A resize the storage rejects halts the rollout at the first pod with
// blockedBy and a Warning, touching no other claim; lowering the template
// to a size the storage accepts recovers it.
func TestInPlaceFailingResizeHaltsAndRecovers(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, inPlaceSet(t, ns, func(s *v1alpha1.StatefulSet) {
		s.Spec.VolumeClaimTemplates[0].Annotations = map[string]string{"sim.ordinal.dev/resize-max": "3Gi"}
	}))
	waitExtended(t, ns, 2*time.Minute, "3 ready replicas", claimsSettled)
	changeTemplates(t, ns, growTo("8Gi"))
	waitExtended(t, ns, 2*time.Minute, "blocked by an infeasible resize", func(s *v1alpha1.StatefulSet) error {
		b := s.Status.BlockedBy
		if len(b) != 1 || b[0].Pod != setName+"-2" || b[0].Reason != "ResizeInfeasible" || !b[0].Permanent {
			return fmt.Errorf("blockedBy %+v", b)
		}
		if c := condition(s, v1alpha1.ConditionProgressing); c.Status != metav1.ConditionFalse {
			return fmt.Errorf("Progressing %s", c.Status)
		}
		return nil
	})
	hasEvent(t, ns, "RolloutFailed", "ResizeInfeasible")
	for _, ord := range []int{0, 1} {
		c, _ := getClaim(t, ns, fmt.Sprintf("www-%s-%d", setName, ord))
		if q := c.Spec.Resources.Requests[corev1.ResourceStorage]; q.Cmp(resource.MustParse("1Gi")) != 0 {
			t.Errorf("claim %s requests %s while the rollout is halted at %s-2", c.Name, q.String(), setName)
		}
	}
	changeTemplates(t, ns, growTo("3Gi"))
	set := waitExtended(t, ns, 3*time.Minute, "recovered", func(s *v1alpha1.StatefulSet) error {
		if len(s.Status.BlockedBy) > 0 {
			return fmt.Errorf("still blocked: %+v", s.Status.BlockedBy)
		}
		return claimsSettled(s)
	})
	checkClaims(t, ns, set, "3Gi")
}

// A StorageClass that does not allow expansion is refused before any claim
// is patched, with a Warning naming the class.
func TestInPlaceRefusesAClassWithoutExpansion(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-fixed"}, Provisioner: simDriver,
		AllowVolumeExpansion: ptr(false), VolumeBindingMode: ptr(storagev1.VolumeBindingImmediate)}
	if _, err := client.StorageV1().StorageClasses().Create(context.Background(), class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.StorageV1().StorageClasses().Delete(context.Background(), class.Name, metav1.DeleteOptions{})
	})
	createExtended(t, inPlaceSet(t, ns, func(s *v1alpha1.StatefulSet) {
		s.Spec.VolumeClaimTemplates[0].Spec.StorageClassName = &class.Name
	}))
	waitExtended(t, ns, 2*time.Minute, "3 ready replicas", claimsSettled)
	changeTemplates(t, ns, growTo("2Gi"))
	waitExtended(t, ns, 2*time.Minute, "blocked by the class", func(s *v1alpha1.StatefulSet) error {
		if b := s.Status.BlockedBy; len(b) != 1 || b[0].Reason != "ExpansionNotAllowed" {
			return fmt.Errorf("blockedBy %+v", b)
		}
		return nil
	})
	hasEvent(t, ns, "ExpansionNotAllowed", class.Name)
	for ord := range 3 {
		c, _ := getClaim(t, ns, fmt.Sprintf("www-%s-%d", setName, ord))
		if q := c.Spec.Resources.Requests[corev1.ResourceStorage]; q.Cmp(resource.MustParse("1Gi")) != 0 {
			t.Errorf("claim %s was patched to %s", c.Name, q.String())
		}
	}
}
