package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// Upstream's TestVolumeTemplateNoopUpdate: re-putting an identical spec
// with a volume claim template passes validation.
func TestAnIdenticalSpecWithAClaimTemplateCanBePutAgain(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	createSet(t, webSet(ns, withClaims()))
	dyn := dynamic.NewForConfigOrDie(restConfig(50, 100))
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	obj, err := dyn.Resource(gvr).Namespace(ns).Get(context.Background(), setName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(gvr).Namespace(ns).Update(context.Background(), obj, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("re-putting the same spec: %v", err)
	}
}

// The e2e "should not deadlock when a pod's predecessor fails": with web-1
// not Ready, deleting the healthy web-0 still recreates web-0.
func TestAPredecessorIsRecreatedWhileASuccessorIsNotReady(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(2)))
	waitSet(t, ns, time.Minute, "2 ready replicas", settled)
	updatePod(t, ns, "web-1", true, func(p *corev1.Pod) { setReady(p, false) })
	old, _ := getPod(t, ns, "web-0")
	deletePod(t, ns, "web-0")
	waitFor(t, 30*time.Second, "web-0 recreated", func() (bool, error) {
		p, ok := getPod(t, ns, "web-0")
		if !ok || p.UID == old.UID {
			return false, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
		}
		return true, nil
	})
}

// The e2e "should validate Statefulset Status endpoints": a condition
// written by someone else through /status survives the controller's own
// status writes.
func TestConditionsWrittenByOthersArePreserved(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(1)))
	waitSet(t, ns, time.Minute, "1 ready replica", settled)
	set := getSet(t, ns)
	set.Status.Conditions = append(set.Status.Conditions, appsv1.StatefulSetCondition{
		Type: "ExternalCheck", Status: corev1.ConditionTrue, Reason: "Tested", LastTransitionTime: metav1.Now(),
	})
	if _, err := client.AppsV1().StatefulSets(ns).UpdateStatus(context.Background(), set, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	updateSet(t, ns, setReplicas(2))
	set = waitSet(t, ns, time.Minute, "2 ready replicas", settled)
	if len(set.Status.Conditions) != 1 || set.Status.Conditions[0].Type != "ExternalCheck" {
		t.Fatalf("conditions after the controller's status writes: %+v", set.Status.Conditions)
	}
}

// The e2e "should list, patch and delete a collection of StatefulSets".
func TestSetsCanBeListedPatchedAndDeletedAsACollection(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	sets := client.AppsV1().StatefulSets(ns)
	for _, name := range []string{"a", "b"} {
		s := webSet(ns, replicas(0))
		s.Name, s.Labels = name, map[string]string{"e2e": "collection"}
		createSet(t, s)
	}
	list, err := sets.List(context.Background(), metav1.ListOptions{LabelSelector: "e2e=collection"})
	if err != nil || len(list.Items) != 2 {
		t.Fatalf("list: %d items, %v", len(list.Items), err)
	}
	if _, err := sets.Patch(context.Background(), "a", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"patched":"yes"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := sets.DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "e2e=collection"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "collection deleted", func() (bool, error) {
		list, err := sets.List(context.Background(), metav1.ListOptions{LabelSelector: "e2e=collection"})
		return err == nil && len(list.Items) == 0, err
	})
}

// The e2e "should not delete PVCs when there is another controller": a
// claim controlled by someone else is left alone under a Delete policy,
// and the set gets a ConflictingController warning.
func TestAClaimOwnedByAnotherControllerIsNeverDeleted(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other-owner", Namespace: ns}}
	other, err := client.CoreV1().ConfigMaps(ns).Create(context.Background(), other, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "www-web-0", Namespace: ns, Labels: map[string]string{"app": "nginx"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: other.Name, UID: other.UID, Controller: ptr(true)}}},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
	}
	if _, err := client.CoreV1().PersistentVolumeClaims(ns).Create(context.Background(), claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(1), withClaims(), retention(appsv1.DeletePersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType)))
	waitSet(t, ns, time.Minute, "1 ready replica", settled)
	waitForEvent(t, ns, "ConflictingController")
	if err := client.AppsV1().StatefulSets(ns).Delete(context.Background(), setName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	consistently(t, 3*time.Second, "the claim survives", func() error {
		c, err := client.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), "www-web-0", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c.DeletionTimestamp != nil {
			return fmt.Errorf("claim is being deleted")
		}
		for _, ref := range c.OwnerReferences {
			if ref.Kind == "StatefulSet" || ref.Kind == "Pod" {
				return fmt.Errorf("claim got an owner reference to %s/%s", ref.Kind, ref.Name)
			}
		}
		return nil
	})
}

// Upstream #64023: a set whose name leaves no room for the revision label
// cannot create pods, silently. Ordinal says why in a Warning event and
// does not loop hot on it.
func TestASetNameTooLongForTheRevisionLabelGivesAWarning(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	s := webSet(ns, replicas(1))
	s.Name = strings.Repeat("a", 60)
	createSet(t, s)
	waitForEvent(t, ns, "RevisionLabelTooLong")
	time.Sleep(2 * time.Second) // let a hot loop, if any, pile up events and writes
	events, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var warnings int32
	for _, e := range events.Items {
		if e.Reason == "RevisionLabelTooLong" {
			warnings += e.Count
		}
	}
	if warnings != 1 {
		t.Errorf("RevisionLabelTooLong reported %d times, want once", warnings)
	}
	set, err := client.AppsV1().StatefulSets(ns).Get(context.Background(), s.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gen := set.Status.ObservedGeneration; gen != set.Generation {
		t.Errorf("status not observed: observedGeneration %d, generation %d", gen, set.Generation)
	}
}

// Two `ordinal controller` replicas with leader election: one leads, and
// when it stops the other takes over through the Lease and keeps
// reconciling.
func TestLeaderElectionFailsOverToTheStandby(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	run := func() (context.CancelFunc, <-chan error) {
		cfg := controllercmd.NewConfig()
		cfg.Kubeconfig = planetest.Plane().KubeconfigPath()
		cfg.Namespace, cfg.LeaseNamespace, cfg.MetricsAddress = ns, ns, ""
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- controllercmd.Run(ctx, cfg) }()
		return cancel, done
	}
	stopA, doneA := run()
	holder := waitForLeaseHolder(t, ns, "")
	stopB, doneB := run()
	defer func() { stopB(); <-doneB }()
	createSet(t, webSet(ns, replicas(1)))
	waitSet(t, ns, time.Minute, "1 ready replica", settled)
	stopA()
	<-doneA
	next := waitForLeaseHolder(t, ns, holder)
	updateSet(t, ns, setReplicas(2))
	waitSet(t, ns, time.Minute, "2 ready replicas after failover", settled)
	if next == holder {
		t.Fatalf("the lease stayed with %s", holder)
	}
}

func waitForLeaseHolder(t *testing.T, ns, not string) string {
	t.Helper()
	var holder string
	waitFor(t, 45*time.Second, "a lease holder other than "+not, func() (bool, error) {
		lease, err := client.CoordinationV1().Leases(ns).Get(context.Background(), "ordinal-statefulset-controller", metav1.GetOptions{})
		if err != nil || lease.Spec.HolderIdentity == nil {
			return false, err
		}
		holder = *lease.Spec.HolderIdentity
		return holder != "" && holder != not, nil
	})
	return holder
}

func waitForEvent(t *testing.T, ns, reason string) {
	t.Helper()
	waitFor(t, 30*time.Second, "a "+reason+" event", func() (bool, error) {
		events, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.Reason == reason {
				return true, nil
			}
		}
		return false, nil
	})
}

func setReady(p *corev1.Pod, ready bool) {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			p.Status.Conditions[i].Status = status
			p.Status.Conditions[i].LastTransitionTime = metav1.Now()
		}
	}
}

// A leader whose QPS budget is used up by a large scale-up must still renew
// its lease: the lease has its own client and token bucket (as
// kube-controller-manager's leader election does), so it never queues
// behind pod and claim writes and leadership is not lost mid-rollout.
func TestTheLeaderKeepsItsLeaseWhileItsQPSBudgetIsSaturated(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	cfg := controllercmd.NewConfig()
	cfg.Kubeconfig = planetest.Plane().KubeconfigPath()
	cfg.Namespace, cfg.LeaseNamespace, cfg.MetricsAddress = ns, ns, ""
	cfg.QPS, cfg.Burst = 2, 2
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- controllercmd.Run(ctx, cfg) }()
	exited := false
	defer func() {
		cancel()
		if !exited {
			<-done
		}
	}()
	holder := waitForLeaseHolder(t, ns, "")
	// 30 pods and 30 claims at 2 requests per second, created in slow-start
	// batches of 1, 2, 4, 8 and 15 replicas: the last batch alone queues
	// 30 writes, 15 s on one token bucket, longer than the 10 s renew
	// deadline.
	createSet(t, webSet(ns, replicas(30), parallel(), withClaims()))
	began := time.Now()
	consistently(t, 45*time.Second, "the leader keeps its lease while its writes queue", func() error {
		select {
		case err := <-done:
			exited = true
			return fmt.Errorf("the controller stopped after %s: %w", time.Since(began).Round(time.Second), err)
		default:
		}
		lease, err := client.CoordinationV1().Leases(ns).Get(context.Background(), "ordinal-statefulset-controller", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if h := lease.Spec.HolderIdentity; h == nil || *h != holder {
			return fmt.Errorf("the lease moved from %s to %v", holder, h)
		}
		if renew := lease.Spec.RenewTime; renew == nil || time.Since(renew.Time) > 12*time.Second {
			return fmt.Errorf("the lease was last renewed at %v", renew)
		}
		return nil
	})
	pods := listPods(t, ns)
	if len(pods) < 20 {
		t.Errorf("only %d pods after 45s at 2 QPS; the controller is not making progress", len(pods))
	}
}
