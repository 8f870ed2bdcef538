package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodsThatLackTheSetsVolumes is the documented decision for pods whose
// volumes do not match the set's volumeClaimTemplates (the set was
// orphan-deleted and applied again with a new template). Pod volumes cannot
// change. Upstream tries anyway on every sync: each attempt fails with a
// FailedUpdate Warning and stops the sync, so the set cannot scale or roll
// until the pods are deleted by hand. Ordinal creates the missing claims,
// writes nothing to the pods, reports each pod once (StorageMismatch), and
// goes on: new pods get the volumes, old ones get them when recreated.
func TestPodsThatLackTheSetsVolumes(t *testing.T) {
	t.Parallel()
	t.Run("both", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			start func(*testing.T, string)
		}{{"builtin", startBuiltin}, {"ordinal", startOrdinal}} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				ns := newNamespace(t)
				c.start(t, ns)
				reapplyWithAClaimTemplate(t, ns)
				updateSet(t, ns, setReplicas(4))
				if c.name == "builtin" {
					hasEvent(t, ns, "FailedUpdate", "Update Pod web-0 in StatefulSet web failed error")
					consistently(t, 5*time.Second, "upstream stays blocked at web-0", func() error {
						if _, ok := getPod(t, ns, "web-3"); ok {
							return fmt.Errorf("web-3 was created")
						}
						return nil
					})
					return
				}
				waitSet(t, ns, time.Minute, "4 ready replicas", readyCount(4))
				for i := 0; i < 4; i++ {
					if _, err := client.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), fmt.Sprintf("www-web-%d", i), metav1.GetOptions{}); err != nil {
						t.Errorf("claim www-web-%d: %v", i, err)
					}
				}
				web3, _ := getPod(t, ns, "web-3")
				if web3 == nil || len(web3.Spec.Volumes) == 0 || web3.Spec.Volumes[0].PersistentVolumeClaim == nil {
					t.Errorf("web-3 does not mount its claim: %+v", web3)
				}
				checkMismatchReportedOnce(t, ns)
			})
		}
	})
}

// reapplyWithAClaimTemplate runs a 3-pod set without claims, orphan-deletes
// it and applies it again with the "www" claim template, and waits until
// the controller has made the claims the old pods lack volumes for.
func reapplyWithAClaimTemplate(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	createSet(t, webSet(ns, replicas(3)))
	waitSet(t, ns, time.Minute, "3 ready replicas", settled)
	orphan := metav1.DeletePropagationOrphan
	if err := client.AppsV1().StatefulSets(ns).Delete(ctx, setName, metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "the set gone and its pods orphaned", func() (bool, error) {
		if _, err := client.AppsV1().StatefulSets(ns).Get(ctx, setName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("set still there (%w)", err)
		}
		for _, p := range listPods(t, ns) {
			if len(p.OwnerReferences) != 0 {
				return false, fmt.Errorf("pod %s still owned", p.Name)
			}
		}
		return true, nil
	})
	createSet(t, webSet(ns, replicas(3), withClaims()))
	// Both controllers make web-0's claim before they find they cannot
	// give web-0 the volume; upstream stops there.
	waitFor(t, time.Minute, "web-0's claim", func() (bool, error) {
		_, err := client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "www-web-0", metav1.GetOptions{})
		return err == nil, err
	})
}

// checkMismatchReportedOnce checks that each old pod was reported once,
// and that no pod update was reported for a write that did not happen.
func checkMismatchReportedOnce(t *testing.T, ns string) {
	t.Helper()
	events := setEvents(t, ns)
	list, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mismatched := map[string]int32{}
	for _, e := range list.Items {
		switch e.Reason {
		case "StorageMismatch":
			mismatched[e.Message] += max(e.Count, 1)
		case "SuccessfulUpdate", "FailedUpdate":
			t.Errorf("event %s: %s; nothing was written to the pods", e.Reason, e.Message)
		}
	}
	if len(mismatched) != 3 {
		t.Errorf("StorageMismatch reported for %d pods, want web-0, web-1 and web-2: %v (all events %v)", len(mismatched), mismatched, events)
	}
	for msg, n := range mismatched {
		if n != 1 {
			t.Errorf("%q reported %d times, want once", msg, n)
		}
	}
	set := getSet(t, ns)
	if set.Spec.PodManagementPolicy != appsv1.OrderedReadyPodManagement {
		t.Fatalf("the scenario expects OrderedReady, got %s", set.Spec.PodManagementPolicy)
	}
}
