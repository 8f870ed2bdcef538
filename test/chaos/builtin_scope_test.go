package chaos

import (
	"context"
	"math/rand"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
			r.sets = append(r.sets, set)
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
