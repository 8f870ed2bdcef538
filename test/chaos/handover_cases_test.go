package chaos

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/invariant"
)

// The built-in controller of a hand-over manages the run's namespace only,
// as Ordinal's replicas do: a set in another namespace is never synced.
func TestBuiltinControllerManagesOnlyItsNamespace(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := newRun(ctx, t, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.cleanup()
	other, err := r.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "chaos-other-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = r.client.CoreV1().Namespaces().Delete(context.Background(), other.Name, metav1.DeleteOptions{})
	}()
	for _, ns := range []string{r.ns, other.Name} {
		set := randomSet(rand.New(rand.NewSource(1)), ns, "alpha")
		if _, err := r.client.AppsV1().StatefulSets(ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if ns == r.ns {
			r.track(set)
		}
	}
	r.replicas = append(r.replicas, startBuiltin(r.dir, "builtin", r.ns))
	if ok, why := r.converge(ctx); !ok {
		r.failed = true
		t.Fatalf("the set in the controller's namespace did not converge: %s (logs in %s)", why, r.dir)
	}
	set, err := r.client.AppsV1().StatefulSets(other.Name).Get(ctx, "alpha", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := r.client.CoreV1().Pods(other.Name).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Status.ObservedGeneration != 0 || len(pods.Items) != 0 {
		t.Errorf("the set in namespace %s was synced: observedGeneration %d, %d pods", other.Name, set.Status.ObservedGeneration, len(pods.Items))
	}
}

// A rolling update half done by one controller is finished by the other,
// both ways: Ordinal stops (SIGTERM) with some pods updated and the
// built-in controller, alone, completes the rollout; then the built-in
// controller is killed (SIGKILL) in the middle of the next one and Ordinal
// completes it. No invariant breaks on the way.
func TestHandOverMidRolloutBothWays(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r, err := newRun(ctx, t, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer r.cleanup()
	set := randomSet(rand.New(rand.NewSource(1)), r.ns, "alpha")
	four := int32(4)
	set.Spec.Replicas, set.Spec.MinReadySeconds = &four, 1
	set.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	if _, err := r.client.AppsV1().StatefulSets(r.ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.track(set)
	r.charge.replicas = 1
	r.takeCharge(invariant.Ordinal)
	if ok, why := r.converge(ctx); !ok {
		t.Fatalf("initial rollout under Ordinal: %s", why)
	}
	for i, step := range []struct {
		to   invariant.Controller
		kill bool
	}{{invariant.Builtin, false}, {invariant.Ordinal, true}} {
		if !r.setImage(ctx, "alpha", 9+i) {
			t.Fatal("updating the image failed")
		}
		if err := r.waitMidRollout(ctx, "alpha"); err != nil {
			t.Fatalf("before the hand-over to %s: %v", step.to, err)
		}
		if err := r.switchTo(ctx, step.to, step.kill); err != nil {
			t.Fatal(err)
		}
		if ok, why := r.converge(ctx); !ok {
			r.failed = true
			r.saveHistory()
			t.Fatalf("%s did not finish the rollout it took over: %s (history in %s)", step.to, why, r.dir)
		}
	}
	r.watcher.Stop()
	for _, v := range r.watcher.Violations() {
		t.Errorf("invariant violated: %s", v)
	}
}

// waitMidRollout waits until some but not all of the set's pods run its
// update revision.
func (r *run) waitMidRollout(ctx context.Context, name string) error {
	last := ""
	for ctx.Err() == nil {
		set, err := r.client.AppsV1().StatefulSets(r.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		updated := 0
		for _, p := range pods.Items {
			if p.Labels[appsv1.ControllerRevisionHashLabelKey] == set.Status.UpdateRevision {
				updated++
			}
		}
		last = fmt.Sprintf("%d of %d pods at update revision %q (current %q)", updated, len(pods.Items), set.Status.UpdateRevision, set.Status.CurrentRevision)
		if set.Status.UpdateRevision != set.Status.CurrentRevision && updated > 0 && updated < int(*set.Spec.Replicas) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no moment with the rollout half done: %s", last)
}
