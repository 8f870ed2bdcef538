package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pods someone else left in the set's namespace: one controlled by another
// object under a name the set needs (web-1), and an orphan matching the
// selector whose name has no ordinal (web-x). The set adopts neither and
// deletes neither; it says in a Warning event why ordinal 1 waits, retries
// with backoff rather than in a hot loop, and goes on as soon as the name
// is free.
func TestPodsLeftBehindByOthersAreLeftAlone(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	ctx := context.Background()
	other, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other-owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	template := webSet(ns).Spec.Template
	mkPod := func(name string, owners []metav1.OwnerReference) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "nginx"}, OwnerReferences: owners},
			Spec: *template.Spec.DeepCopy()}
		created, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return created
	}
	foreign := mkPod(setName+"-1", []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: other.Name, UID: other.UID, Controller: ptr(true)}})
	unparsable := mkPod(setName+"-x", nil)

	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(2)))
	waitFor(t, time.Minute, "a FailedCreate event naming the foreign pod's owner", func() (bool, error) {
		msg, _, err := eventsWithReason(ns, "FailedCreate")
		return strings.Contains(msg, "ConfigMap other-owner"), err
	})
	consistently(t, 8*time.Second, "the pods of others are left as they are", func() error {
		for _, want := range []*corev1.Pod{foreign, unparsable} {
			p, err := client.CoreV1().Pods(ns).Get(ctx, want.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if p.UID != want.UID || p.DeletionTimestamp != nil {
				return fmt.Errorf("pod %s was replaced or is being deleted", want.Name)
			}
			if len(p.OwnerReferences) != len(want.OwnerReferences) {
				return fmt.Errorf("pod %s now has owners %v", p.Name, p.OwnerReferences)
			}
		}
		return nil
	})
	set, err := client.AppsV1().StatefulSets(ns).Get(ctx, setName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Status.Replicas != 1 || set.Status.ObservedGeneration != set.Generation {
		t.Errorf("status %s, want replicas=1 observed", describeStatus(set.Status))
	}
	msg, count, err := eventsWithReason(ns, "FailedCreate")
	if err != nil {
		t.Fatal(err)
	}
	// The queue's backoff doubles from 5 ms: about a dozen attempts in the
	// ~10 s so far. A hot loop would make hundreds (the event recorder
	// would aggregate them into one event with a large count).
	if count < 2 || count > 20 {
		t.Errorf("FailedCreate reported %d times in about 10s, want 2 to 20 (backoff, no hot loop): %s", count, msg)
	}

	externalDelete(ns, foreign.UID)
	if err := client.CoreV1().Pods(ns).Delete(ctx, foreign.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	waitSet(t, ns, time.Minute, "2 ready replicas once the name is free", settled)
	t.Logf("set complete %s after the foreign pod was deleted", time.Since(began).Round(100*time.Millisecond))
	p, err := client.CoreV1().Pods(ns).Get(ctx, unparsable.Name, metav1.GetOptions{})
	if err != nil || len(p.OwnerReferences) != 0 {
		t.Errorf("the unparsable orphan: err %v, owners %v; want it untouched", err, p.OwnerReferences)
	}
}

// eventsWithReason returns the message of the newest event with reason and
// the sum of their counts.
func eventsWithReason(ns, reason string) (string, int32, error) {
	events, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return "", 0, err
	}
	var msg string
	var count int32
	for _, e := range events.Items {
		if e.Reason == reason {
			msg = e.Message
			count += max(e.Count, 1)
		}
	}
	return msg, count, nil
}
