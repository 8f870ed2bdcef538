package integration

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/conflict"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// Event types the recorder keeps. ADDED and DELETED are what a watch
// reports; TERMINATING (deletionTimestamp first seen) and READY (Ready
// turned true) come from updates and are kept for ordering checks.
const (
	evAdded       = "ADDED"
	evDeleted     = "DELETED"
	evTerminating = "TERMINATING"
	evReady       = "READY"
)

// podEvent is one observed pod change: what, which pod, at which revision.
type podEvent struct {
	Type, Name, Rev string
}

func (e podEvent) String() string { return e.Type + " " + e.Name + "@" + e.Rev }

// recorder watches the pods of a namespace and keeps their events in the
// order the watch delivered them.
type recorder struct {
	mu     sync.Mutex
	events []podEvent
}

// recordPods starts a recorder for ns; it runs until the test ends. Start
// it before creating the set so the first ADDED is seen.
func recordPods(t *testing.T, ns string) *recorder {
	t.Helper()
	r := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { r.add(evAdded, obj.(*corev1.Pod)) },
		UpdateFunc: func(oldObj, newObj any) {
			old, cur := oldObj.(*corev1.Pod), newObj.(*corev1.Pod)
			if old.DeletionTimestamp == nil && cur.DeletionTimestamp != nil {
				r.add(evTerminating, cur)
			}
			if !isReady(old) && isReady(cur) {
				r.add(evReady, cur)
			}
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				r.add(evDeleted, pod)
			}
		},
	})
	if err != nil {
		t.Fatalf("adding pod handler: %v", err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("pod recorder did not sync")
	}
	return r
}

func (r *recorder) add(typ string, pod *corev1.Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, podEvent{Type: typ, Name: pod.Name, Rev: pod.Labels[appsv1.ControllerRevisionHashLabelKey]})
}

// Events returns the events of the given types (all if none are given).
func (r *recorder) Events(types ...string) []podEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []podEvent
	for _, e := range r.events {
		if len(types) == 0 || contains(types, e.Type) {
			out = append(out, e)
		}
	}
	return out
}

// Mark returns how many events are recorded so far, for Since.
func (r *recorder) Mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// Since returns the events of the given types recorded after mark.
func (r *recorder) Since(mark int, types ...string) []podEvent {
	r.mu.Lock()
	tail := append([]podEvent(nil), r.events[mark:]...)
	r.mu.Unlock()
	var out []podEvent
	for _, e := range tail {
		if len(types) == 0 || contains(types, e.Type) {
			out = append(out, e)
		}
	}
	return out
}

// Between returns the events of the given types recorded in [from, to).
func (r *recorder) Between(from, to int, types ...string) []podEvent {
	r.mu.Lock()
	window := append([]podEvent(nil), r.events[from:to]...)
	r.mu.Unlock()
	var out []podEvent
	for _, e := range window {
		if len(types) == 0 || contains(types, e.Type) {
			out = append(out, e)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func names(events []podEvent) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Name
	}
	return out
}

// waitFor is planetest.WaitFor.
var waitFor = planetest.WaitFor

// consistently checks cond every 100ms for d and fails the test the first
// time cond returns an error. It observes a state that must hold; it is
// not a sleep standing in for a wait.
func consistently(t *testing.T, d time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if err := cond(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func createSet(t *testing.T, set *appsv1.StatefulSet) *appsv1.StatefulSet {
	t.Helper()
	created, err := client.AppsV1().StatefulSets(set.Namespace).Create(context.Background(), set, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating statefulset %s/%s: %v", set.Namespace, set.Name, err)
	}
	return created
}

func getSet(t *testing.T, ns string) *appsv1.StatefulSet {
	t.Helper()
	set, err := client.AppsV1().StatefulSets(ns).Get(context.Background(), setName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting statefulset %s/%s: %v", ns, setName, err)
	}
	return set
}

// updateSet applies mutate to the latest set and stores it, retrying on
// conflicts; it returns the stored set.
func updateSet(t *testing.T, ns string, mutate func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	t.Helper()
	var stored *appsv1.StatefulSet
	err := conflict.Retry(func() error {
		set, err := client.AppsV1().StatefulSets(ns).Get(context.Background(), setName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(set)
		stored, err = client.AppsV1().StatefulSets(ns).Update(context.Background(), set, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("updating statefulset %s/%s: %v", ns, setName, err)
	}
	return stored
}

func setImage(image string) func(*appsv1.StatefulSet) {
	return func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = image }
}

func setReplicas(n int32) func(*appsv1.StatefulSet) {
	return func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr(n) }
}

func setPartition(n int32) func(*appsv1.StatefulSet) {
	return func(s *appsv1.StatefulSet) { partition(n)(s) }
}

// listPods returns the namespace's pods sorted by name.
func listPods(t *testing.T, ns string) []corev1.Pod {
	t.Helper()
	list, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing pods in %s: %v", ns, err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items
}

func getPod(t *testing.T, ns, name string) (*corev1.Pod, bool) {
	t.Helper()
	pod, err := client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("getting pod %s/%s: %v", ns, name, err)
	}
	return pod, true
}

func deletePod(t *testing.T, ns, name string) {
	t.Helper()
	if pod, ok := getPod(t, ns, name); ok {
		externalDelete(ns, pod.UID)
	}
	if err := client.CoreV1().Pods(ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting pod %s/%s: %v", ns, name, err)
	}
}

// updatePod applies mutate to the latest pod (status too when status is
// true) with retries on conflict.
func updatePod(t *testing.T, ns, name string, status bool, mutate func(*corev1.Pod)) {
	t.Helper()
	pods := client.CoreV1().Pods(ns)
	err := conflict.Retry(func() error {
		pod, err := pods.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(pod)
		if status {
			_, err = pods.UpdateStatus(context.Background(), pod, metav1.UpdateOptions{})
		} else {
			_, err = pods.Update(context.Background(), pod, metav1.UpdateOptions{})
		}
		return err
	})
	if err != nil {
		t.Fatalf("updating pod %s/%s: %v", ns, name, err)
	}
}

func isReady(pod *corev1.Pod) bool {
	if pod.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podRev(pod *corev1.Pod) string { return pod.Labels[appsv1.ControllerRevisionHashLabelKey] }

// describePods is a one-line summary of the pods for failure messages.
func describePods(pods []corev1.Pod) string {
	var parts []string
	for i := range pods {
		p := &pods[i]
		state := string(p.Status.Phase)
		if isReady(p) {
			state += "/Ready"
		}
		if p.DeletionTimestamp != nil {
			state += "/Terminating"
		}
		parts = append(parts, fmt.Sprintf("%s@%s(%s)", p.Name, podRev(p), state))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func describeStatus(s appsv1.StatefulSetStatus) string {
	return fmt.Sprintf("observedGeneration=%d replicas=%d ready=%d available=%d current=%d updated=%d currentRevision=%s updateRevision=%s",
		s.ObservedGeneration, s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.CurrentReplicas, s.UpdatedReplicas, s.CurrentRevision, s.UpdateRevision)
}

// waitSet waits until check accepts the set; check's error says why not.
func waitSet(t *testing.T, ns string, timeout time.Duration, what string, check func(*appsv1.StatefulSet) error) *appsv1.StatefulSet {
	t.Helper()
	var got *appsv1.StatefulSet
	waitFor(t, timeout, what, func() (bool, error) {
		set, err := client.AppsV1().StatefulSets(ns).Get(context.Background(), setName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if err := check(set); err != nil {
			return false, fmt.Errorf("%w; status %s; pods %s", err, describeStatus(set.Status), describePods(listPods(t, ns)))
		}
		got = set
		return true, nil
	})
	return got
}

// settled accepts a set whose controller has observed the latest spec and
// whose wanted pods all exist, are Ready and run the update revision, with
// the rollout finished (currentRevision == updateRevision).
func settled(set *appsv1.StatefulSet) error {
	st, want := set.Status, *set.Spec.Replicas
	switch {
	case st.ObservedGeneration < set.Generation:
		return fmt.Errorf("generation %d not observed", set.Generation)
	case st.Replicas != want || st.ReadyReplicas != want || st.UpdatedReplicas != want || st.AvailableReplicas != want:
		return fmt.Errorf("want %d replicas ready, available and updated", want)
	case st.CurrentRevision != st.UpdateRevision:
		return fmt.Errorf("currentRevision %s != updateRevision %s", st.CurrentRevision, st.UpdateRevision)
	case st.CurrentReplicas != want:
		return fmt.Errorf("want %d current replicas", want)
	}
	return nil
}

// readyCount accepts a set whose controller has observed the latest spec
// and reports n replicas, all ready.
func readyCount(n int32) func(*appsv1.StatefulSet) error {
	return func(set *appsv1.StatefulSet) error {
		st := set.Status
		if st.ObservedGeneration < set.Generation || st.Replicas != n || st.ReadyReplicas != n {
			return fmt.Errorf("want %d replicas, all ready, at generation %d", n, set.Generation)
		}
		return nil
	}
}

// podNames returns the names of the pods that exist and are not
// terminating.
func podNames(t *testing.T, ns string) []string {
	t.Helper()
	var out []string
	for _, p := range listPods(t, ns) {
		if p.DeletionTimestamp == nil {
			out = append(out, p.Name)
		}
	}
	return out
}

func listRevisions(t *testing.T, ns string) []appsv1.ControllerRevision {
	t.Helper()
	list, err := client.AppsV1().ControllerRevisions(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing controller revisions in %s: %v", ns, err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Revision < list.Items[j].Revision })
	return list.Items
}
