package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func getClaim(t *testing.T, ns, name string) (*corev1.PersistentVolumeClaim, bool) {
	t.Helper()
	c, err := client.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("getting claim %s/%s: %v", ns, name, err)
	}
	return c, true
}

// claimOwners describes a claim's owner references as kind/name pairs,
// checking that each is a controller reference with blockOwnerDeletion.
func claimOwners(c *corev1.PersistentVolumeClaim) ([]string, error) {
	var out []string
	for _, r := range c.OwnerReferences {
		if r.Controller == nil || !*r.Controller || r.BlockOwnerDeletion == nil || !*r.BlockOwnerDeletion {
			return nil, fmt.Errorf("claim %s: owner %s/%s is not a blocking controller reference", c.Name, r.Kind, r.Name)
		}
		out = append(out, r.Kind+"/"+r.Name)
	}
	return out, nil
}

func TestRetentionPolicySetsClaimOwnersAndTheGarbageCollectorActs(t *testing.T) {
	t.Parallel()
	const retain, del = appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	for _, tc := range []struct {
		name                    string
		whenDeleted, whenScaled appsv1.PersistentVolumeClaimRetentionPolicyType
	}{
		{"retain on delete, retain on scale-down", retain, retain},
		{"delete on delete, retain on scale-down", del, retain},
		{"retain on delete, delete on scale-down", retain, del},
		{"delete on delete, delete on scale-down", del, del},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := newNamespace(t)
			startOrdinal(t, ns)
			set := createSet(t, webSet(ns, replicas(3), parallel(), withClaims(), retention(tc.whenDeleted, tc.whenScaled)))
			waitSet(t, ns, time.Minute, "3 ready replicas", readyCount(3))
			inRange := []string(nil)
			if tc.whenDeleted == del {
				inRange = []string{"StatefulSet/web"}
			}
			expectOwners := func(claim string, want []string) func() (bool, error) {
				return func() (bool, error) {
					c, ok := getClaim(t, ns, claim)
					if !ok {
						return false, fmt.Errorf("claim %s missing", claim)
					}
					got, err := claimOwners(c)
					if err != nil {
						return false, err
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						return false, fmt.Errorf("claim %s owners %v, want %v", claim, got, want)
					}
					for _, r := range c.OwnerReferences {
						if r.Kind == "StatefulSet" && r.UID != set.UID {
							return false, fmt.Errorf("claim %s: set reference has uid %s, want %s", claim, r.UID, set.UID)
						}
					}
					return true, nil
				}
			}
			for _, claim := range []string{"www-web-0", "www-web-1", "www-web-2"} {
				waitFor(t, 30*time.Second, "owners of "+claim+" after create", expectOwners(claim, inRange))
			}

			updateSet(t, ns, setReplicas(1))
			waitSet(t, ns, time.Minute, "1 ready replica", readyCount(1))
			waitFor(t, 30*time.Second, "web-1 and web-2 gone", func() (bool, error) {
				return len(listPods(t, ns)) == 1, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
			})
			waitFor(t, 30*time.Second, "owners of www-web-0 after scale-down", expectOwners("www-web-0", inRange))
			for _, claim := range []string{"www-web-1", "www-web-2"} {
				if tc.whenScaled == del {
					waitFor(t, time.Minute, claim+" deleted by the garbage collector", func() (bool, error) {
						_, ok := getClaim(t, ns, claim)
						return !ok, fmt.Errorf("claim %s still exists", claim)
					})
				} else {
					waitFor(t, 30*time.Second, "owners of "+claim+" after scale-down", expectOwners(claim, inRange))
				}
			}

			bg := metav1.DeletePropagationBackground
			if err := client.AppsV1().StatefulSets(ns).Delete(context.Background(), setName, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
				t.Fatalf("deleting set: %v", err)
			}
			waitFor(t, time.Minute, "the set's pods to be collected", func() (bool, error) {
				return len(listPods(t, ns)) == 0, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
			})
			remaining := []string{"www-web-0"}
			if tc.whenScaled == retain {
				remaining = append(remaining, "www-web-1", "www-web-2")
			}
			if tc.whenDeleted == del {
				waitFor(t, time.Minute, "claims deleted with the set", func() (bool, error) {
					for _, claim := range remaining {
						if _, ok := getClaim(t, ns, claim); ok {
							return false, fmt.Errorf("claim %s still exists", claim)
						}
					}
					return true, nil
				})
				return
			}
			consistently(t, 2*time.Second, "claims kept after the set is deleted", func() error {
				for _, claim := range remaining {
					if c, ok := getClaim(t, ns, claim); !ok || c.DeletionTimestamp != nil {
						return fmt.Errorf("claim %s was deleted", claim)
					}
				}
				return nil
			})
		})
	}
}

// TestMissingClaimOfPendingPodIsRecreated mirrors upstream's e2e: the pod
// is Pending and unscheduled (here: no node matches its node selector, as
// a cordoned node does upstream), so pvc-protection lets its claim go;
// once a node fits, the scheduler reports the missing claim, the pod's
// status changes and the controller recreates the claim.
func TestMissingClaimOfPendingPodIsRecreated(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	const key = "ordinal.test/missing-claim"
	createSet(t, webSet(ns, replicas(1), withClaims(), nodeSelector(key, ns)))
	var claimUID types.UID
	waitFor(t, 30*time.Second, "web-0 pending with its claim", func() (bool, error) {
		p, ok := getPod(t, ns, "web-0")
		c, cok := getClaim(t, ns, "www-web-0")
		if !ok || !cok || p.Status.Phase != corev1.PodPending {
			return false, fmt.Errorf("pods %s, claim exists %v", describePods(listPods(t, ns)), cok)
		}
		claimUID = c.UID
		return true, nil
	})
	pod, _ := getPod(t, ns, "web-0")
	externalDelete(ns, claimUID)
	if err := client.CoreV1().PersistentVolumeClaims(ns).Delete(context.Background(), "www-web-0", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting claim: %v", err)
	}
	waitFor(t, 30*time.Second, "the old claim to be gone", func() (bool, error) {
		c, ok := getClaim(t, ns, "www-web-0")
		return !ok || c.UID != claimUID, fmt.Errorf("claim still there (terminating %v)", ok && c.DeletionTimestamp != nil)
	})
	openANode(t, key, ns)
	waitFor(t, time.Minute, "a new claim and web-0 ready", func() (bool, error) {
		c, ok := getClaim(t, ns, "www-web-0")
		p, pok := getPod(t, ns, "web-0")
		if !ok || c.UID == claimUID || !pok || !isReady(p) {
			return false, fmt.Errorf("claim recreated %v, pods %s", ok && c.UID != claimUID, describePods(listPods(t, ns)))
		}
		if p.UID != pod.UID {
			return false, fmt.Errorf("web-0 was recreated instead of keeping the pending pod")
		}
		return true, nil
	})
}

// openANode labels one node key=value, so that pods held back by a node
// selector for it (nodeSelector) are scheduled there, until the test ends.
func openANode(t *testing.T, key, value string) {
	t.Helper()
	nodes, err := client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) == 0 {
		t.Fatalf("listing nodes: %v (%d)", err, len(nodes.Items))
	}
	node := nodes.Items[0].Name
	labelNode(t, node, key, &value)
	t.Cleanup(func() { labelNode(t, node, key, nil) })
}

func labelNode(t *testing.T, node, key string, value *string) {
	t.Helper()
	v := "null"
	if value != nil {
		v = fmt.Sprintf("%q", *value)
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%s}}}`, key, v)
	if _, err := client.CoreV1().Nodes().Patch(context.Background(), node, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Errorf("labelling node %s: %v", node, err)
	}
}
