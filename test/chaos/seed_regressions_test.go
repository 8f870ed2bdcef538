package chaos

import (
	"context"
	"math/rand"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestParallelRolloutRecreatesMissingPod is chaos seed 1037 made
// deterministic: a Parallel set with RollingUpdate and no rollingUpdate
// field, whose template changes while pod 0 is missing. The missing pod is
// recreated at the current revision (ordinal < status.currentReplicas, as
// upstream does) and the rolling update deletes it at once as an outdated
// pod that is already unavailable (Ordinal's fix for upstream #137409), so
// it was created and deleted forever. Fixed: under Parallel the missing pod
// now gets the update revision.
func TestParallelRolloutRecreatesMissingPod(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := newRun(ctx, t, 1037)
	if err != nil {
		t.Fatal(err)
	}
	defer r.cleanup()
	set := randomSet(rand.New(rand.NewSource(1)), r.ns, "alpha")
	set.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	two := int32(2)
	set.Spec.Replicas, set.Spec.MinReadySeconds = &two, 1
	if _, err := r.client.AppsV1().StatefulSets(r.ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.track(set)
	rep := startReplica(r.dir, "first", r.ns, 0, 0)
	if ok, why := r.converge(ctx); !ok {
		rep.stop()
		t.Fatalf("initial rollout: %s", why)
	}
	rep.stop()
	if !r.setImage(ctx, "alpha", 9) {
		t.Fatal("updating the image failed")
	}
	if err := r.client.CoreV1().Pods(r.ns).Delete(ctx, "alpha-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.replicas = append(r.replicas, startReplica(r.dir, "second", r.ns, 0, 0))
	r.stopped = time.Now()
	if ok, why := r.converge(ctx); !ok {
		r.failed = true
		r.saveHistory()
		t.Errorf("rollout with a missing pod 0 did not converge: %s (history in %s)", why, r.dir)
	}
}

// Chaos seed 3059 made deterministic: an OrderedReady set with type
// RollingUpdate and no rollingUpdate field. A missing pod below
// status.currentReplicas is recreated at the current revision (upstream's
// rule); the rolling update lowers currentReplicas as it deletes a pod.
// With that count-only status change held back, the next sync planned from
// the stored, higher count, recreated the deleted pod at the old revision,
// and the rolling update deleted it again, forever. Fixed: syncs plan from
// the status the controller holds back.
func TestOrderedRolloutPlansFromTheHeldBackStatus(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := newRun(ctx, t, 3059)
	if err != nil {
		t.Fatal(err)
	}
	defer r.cleanup()
	set := randomSet(rand.New(rand.NewSource(1)), r.ns, "alpha")
	set.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	three := int32(3)
	set.Spec.Replicas, set.Spec.MinReadySeconds = &three, 0
	if _, err := r.client.AppsV1().StatefulSets(r.ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.track(set)
	r.replicas = append(r.replicas, startReplica(r.dir, "only", r.ns, 0, 0))
	if ok, why := r.converge(ctx); !ok {
		t.Fatalf("initial rollout: %s", why)
	}
	for _, v := range []int{9, 10} {
		if !r.setImage(ctx, "alpha", v) {
			t.Fatalf("updating the image to 0.%d failed", v)
		}
		r.stopped = time.Now()
		if ok, why := r.converge(ctx); !ok {
			r.failed = true
			r.saveHistory()
			t.Fatalf("rolling update to 0.%d did not converge: %s (history in %s)", v, why, r.dir)
		}
	}
	r.watcher.Stop()
	for _, v := range r.watcher.Violations() {
		t.Errorf("invariant violated: %s", v)
	}
}

// Chaos seed 8102 ended with "status.availableReplicas is 1, the pods say
// 3" in the final check. A roll-out held at its partition is never
// complete (currentRevision is not the update revision), so the last
// count-only change, a pod passing minReadySeconds after the set had come
// to rest, waited for the debounce (or the whole hold under load): a
// status showing the pod Ready but not yet Available had already
// converged, and two seconds later it still said so. Here every pod of a
// partitioned Parallel set with minReadySeconds 1 is deleted, round after
// round, and each time the set must converge and pass the final check;
// before the fix each of three runs failed it by round 10 ("status.
// availableReplicas is 0, the pods say 3"). Fixed: a set at rest (every
// pod Available, nothing to do) writes its status at once.
func TestAPartitionedSetAtRestReportsItsFinalAvailability(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	r, err := newRun(ctx, t, 8102)
	if err != nil {
		t.Fatal(err)
	}
	defer r.cleanup()
	set := randomSet(rand.New(rand.NewSource(1)), r.ns, "alpha")
	three, one := int32(3), int32(1)
	set.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	set.Spec.Replicas, set.Spec.MinReadySeconds = &three, 1
	set.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: &one}
	if _, err := r.client.AppsV1().StatefulSets(r.ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.track(set)
	r.replicas = append(r.replicas, startReplica(r.dir, "only", r.ns, 0, 0))
	if ok, why := r.converge(ctx); !ok {
		t.Fatalf("initial rollout: %s", why)
	}
	if !r.setImage(ctx, "alpha", 9) {
		t.Fatal("updating the image failed")
	}
	if ok, why := r.converge(ctx); !ok {
		t.Fatalf("rolling update to the partition: %s", why)
	}
	for round := 0; round < 20 && !t.Failed(); round++ {
		r.deleteAllPods(ctx)
		r.stopped = time.Now()
		if ok, why := r.converge(ctx); !ok {
			t.Errorf("round %d: %s", round, why)
		}
		for _, v := range r.finalChecks(ctx) {
			t.Errorf("round %d: final check: %s", round, v)
		}
	}
	r.watcher.Stop()
	for _, v := range r.watcher.Violations() {
		t.Errorf("invariant violated: %s", v)
	}
	if t.Failed() {
		r.failed = true
		r.saveHistory()
		t.Logf("history in %s", r.dir)
	}
}

// deleteAllPods deletes every pod of the run's namespace at once, as a
// user would, and gives the deletions a moment to land.
func (r *run) deleteAllPods(ctx context.Context) {
	r.t.Helper()
	pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		r.watcher.ExternalDelete(p.UID)
		if err := r.client.CoreV1().Pods(r.ns).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
			r.t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
}
