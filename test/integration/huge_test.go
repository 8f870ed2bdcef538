package integration

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Bounds of TestAMillionReplicasCostTheControllerItsPodsNotItsReplicas.
const (
	// hugeHeapGrowth bounds how much more heap the test process (the
	// plane, its simulated nodes, the invariant checker and the
	// controller) may hold at any moment, garbage not yet collected
	// included, than after the small set converged. The huge sets' pods
	// cost the plane and the caches their share; a sync that built one
	// placeholder pod per missing ordinal of a million replicas would
	// hold gigabytes.
	hugeHeapGrowth = 1 << 30
	// smallSetLeeway is how much longer than alone a three-pod set may
	// take to converge beside the huge sets.
	smallSetLeeway = 30 * time.Second
)

// namedSet is webSet named name, selecting and labelling its pods
// app=name, so that several sets share a namespace.
func namedSet(ns, name string, opts ...setOption) *appsv1.StatefulSet {
	set := webSet(ns, opts...)
	set.Name = name
	set.Spec.Selector.MatchLabels = map[string]string{"app": name}
	set.Spec.Template.Labels = map[string]string{"app": name}
	return set
}

// startProductionOrdinal runs Ordinal's controller for ns as `ordinal
// controller` runs it: the default configuration (QPS 20, burst 30, five
// workers) and its token bucket.
func startProductionOrdinal(t *testing.T, ns string) {
	t.Helper()
	cfg := controller.NewConfig()
	cfg.Namespace = ns
	rc := planetest.Plane().RESTConfig()
	cfg.Limit(rc)
	limiter := controller.Throttle(rc)
	opts := cfg.Options(limiter.Busy, rc.Host)
	opts.StorageClasses = true
	var err error
	if opts.Extended, err = kubeclient.ExtendedClient(rc); err != nil {
		t.Fatal(err)
	}
	cl := kubernetes.NewForConfigOrDie(rc)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- controller.Run(ctx, cl, opts) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ordinal controller for %s: %v", ns, err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("ordinal controller for %s did not stop within 30s", ns)
		}
	})
}

// heapWatch samples the heap's objects, live and garbage not yet
// collected, every 50 ms, keeping the highest.
type heapWatch struct {
	peak atomic.Uint64
	stop chan struct{}
	done sync.WaitGroup
}

func watchHeap() *heapWatch {
	w := &heapWatch{stop: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > w.peak.Load() {
				w.peak.Store(v)
			}
			select {
			case <-w.stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return w
}

func (w *heapWatch) finish() uint64 {
	close(w.stop)
	w.done.Wait()
	return w.peak.Load()
}

// liveHeap is the heap's objects after a collection: the live ones.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// syncs is how many syncs of any set this process's controllers have
// finished.
func syncs(t *testing.T) uint64 {
	t.Helper()
	families, err := controller.NewRegistry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, f := range families {
		if f.GetName() == "ordinal_statefulset_sync_duration_seconds" {
			for _, m := range f.GetMetric() {
				n += m.GetHistogram().GetSampleCount()
			}
		}
	}
	return n
}

// converge creates a three-pod OrderedReady set and returns how long it
// took to settle.
func converge(t *testing.T, ns, name string) time.Duration {
	t.Helper()
	began := time.Now()
	createSet(t, namedSet(ns, name))
	waitFor(t, 3*time.Minute, name+" settled", func() (bool, error) {
		set, err := client.AppsV1().StatefulSets(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if err := settled(set); err != nil {
			list, _ := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + name})
			return false, fmt.Errorf("%w; status %s; pods %s", err, describeStatus(set.Status), describePods(list.Items))
		}
		return true, nil
	})
	return time.Since(began)
}

// podsOf counts the pods of the set named name.
func podsOf(t *testing.T, ns, name string) int {
	t.Helper()
	list, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		t.Fatalf("listing the pods of %s: %v", name, err)
	}
	return len(list.Items)
}

// One `kubectl scale --replicas=1000000` must not take the controller
// down with it: a sync builds pods only for the ordinals it acts on, so
// while an apps/v1 set of a million replicas under each policy and an
// extended set at the kind's maximum are created at the API's pace, the
// controller's memory follows the pods that exist (the heap, sampled
// through hundreds of the huge sets' syncs, never grows by
// hugeHeapGrowth), the Parallel set goes on past planner.MaxCreates in
// later syncs, and a three-pod set created meanwhile settles within
// smallSetLeeway of the time it takes alone.
func TestAMillionReplicasCostTheControllerItsPodsNotItsReplicas(t *testing.T) {
	ns := newNamespace(t)
	startProductionOrdinal(t, ns)
	alone := converge(t, ns, "small-before")
	baseline := liveHeap()
	syncsBefore := syncs(t)
	heap := watchHeap()

	// The Parallel set's pods name a scheduler there is none of: they stay
	// Pending, as most of a million would in any cluster, and the plane's
	// scheduler and simulated nodes, which share this process and its
	// CPUs, do not queue the small set's pods behind thousands of them.
	// The OrderedReady sets' pods run, one after another, each step a few
	// syncs of a set of a million (or the kind's maximum) replicas.
	nowhere := func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.SchedulerName = "no-scheduler.ordinal.dev" }
	createSet(t, namedSet(ns, "huge-ordered", replicas(1_000_000)))
	createSet(t, namedSet(ns, "huge-parallel", replicas(1_000_000), parallel(), nowhere))
	createExtended(t, asExtended(t, namedSet(ns, "huge-osts"), func(s *v1alpha1.StatefulSet) {
		s.Spec.Replicas = ptr(int32(v1alpha1.MaxReplicas))
	}))
	past, began := planner.MaxCreates+100, time.Now()
	waitFor(t, 4*time.Minute, fmt.Sprintf("huge-parallel past %d pods", past), func() (bool, error) {
		n := podsOf(t, ns, "huge-parallel")
		return n >= past, fmt.Errorf("%d pods", n)
	})
	t.Logf("huge-parallel had %d pods after %s", past, time.Since(began).Round(time.Second))
	beside := converge(t, ns, "small-beside")
	t.Logf("a three-pod set settled in %s alone and in %s beside the huge sets", alone.Round(time.Millisecond), beside.Round(time.Millisecond))
	// Each huge set has its status written; the OrderedReady ones have
	// gone on past their first pod. (A Parallel sync of MaxCreates pods
	// takes the better part of a minute at QPS 20, and its status, written
	// after it, counts the pods it saw when it began.)
	statuses := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		for _, tc := range []struct {
			name string
			pods int32
		}{{"huge-ordered", 2}, {"huge-parallel", 0}} {
			set, err := client.AppsV1().StatefulSets(ns).Get(context.Background(), tc.name, metav1.GetOptions{})
			if err != nil || set.Status.ObservedGeneration != set.Generation || set.Status.Replicas < tc.pods {
				return false, nil
			}
		}
		x := getExtendedNamed(t, ns, "huge-osts")
		return x.Status.ObservedGeneration == x.Generation && x.Status.Replicas >= 2, nil
	})
	peak := heap.finish()
	after := liveHeap()
	n := syncs(t) - syncsBefore
	t.Logf("heap: %d MiB live before the huge sets, peak %d MiB (live and garbage) through %d syncs, %d MiB live after",
		baseline>>20, peak>>20, n, after>>20)
	t.Logf("pods: huge-ordered %d, huge-parallel %d, huge-osts %d", podsOf(t, ns, "huge-ordered"), podsOf(t, ns, "huge-parallel"), podsOf(t, ns, "huge-osts"))
	if statuses != nil {
		for _, name := range []string{"huge-ordered", "huge-parallel"} {
			set, err := client.AppsV1().StatefulSets(ns).Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: status %s", name, describeStatus(set.Status))
		}
		t.Errorf("the huge sets' statuses were not written within a minute (the OrderedReady ones past their first pod): %v; huge-osts status %+v",
			statuses, getExtendedNamed(t, ns, "huge-osts").Status)
	}
	if peak > baseline+hugeHeapGrowth {
		t.Errorf("the heap reached %d MiB, more than %d MiB over the %d MiB before the huge sets", peak>>20, hugeHeapGrowth>>20, baseline>>20)
	}
	if beside > alone+smallSetLeeway {
		t.Errorf("a three-pod set took %s beside the huge sets, more than %s over the %s it took alone", beside, smallSetLeeway, alone)
	}
}

func getExtendedNamed(t *testing.T, ns, name string) *v1alpha1.StatefulSet {
	t.Helper()
	set, err := extendedSets(t, ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting extended set %s: %v", name, err)
	}
	return set
}
