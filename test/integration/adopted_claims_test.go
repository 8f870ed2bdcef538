package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The e2e "should delete PVCs after adopting pod": a pod is orphaned (its
// owner reference removed) and re-adopted; the retention policy then
// applies to its claim as to any other, and the garbage collector deletes
// the claim with the set (WhenDeleted) or with the scaled-down pod
// (WhenScaled).
func TestClaimsOfAnAdoptedPodFollowTheRetentionPolicy(t *testing.T) {
	t.Parallel()
	const del, retain = appsv1.DeletePersistentVolumeClaimRetentionPolicyType, appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	for _, tc := range []struct {
		name                    string
		whenDeleted, whenScaled appsv1.PersistentVolumeClaimRetentionPolicyType
	}{
		{"when the set is deleted", del, retain},
		{"when the set scales down", retain, del},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := newNamespace(t)
			startOrdinal(t, ns)
			set := createSet(t, webSet(ns, replicas(2), withClaims(), retention(tc.whenDeleted, tc.whenScaled)))
			waitSet(t, ns, time.Minute, "2 ready replicas", settled)
			before, _ := getPod(t, ns, "web-1")
			orphan := fmt.Sprintf(`{"metadata":{"ownerReferences":[{"$patch":"delete","uid":%q}],"uid":%q}}`, set.UID, before.UID)
			if _, err := client.CoreV1().Pods(ns).Patch(context.Background(), "web-1", types.StrategicMergePatchType, []byte(orphan), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 30*time.Second, "web-1 adopted again", func() (bool, error) {
				p, ok := getPod(t, ns, "web-1")
				if !ok {
					return false, fmt.Errorf("web-1 is gone")
				}
				ref := metav1.GetControllerOf(p)
				return p.UID == before.UID && ref != nil && ref.UID == set.UID, nil
			})
			if tc.whenDeleted == del {
				if err := client.AppsV1().StatefulSets(ns).Delete(context.Background(), setName, metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			} else {
				updateSet(t, ns, setReplicas(1))
			}
			waitFor(t, time.Minute, "the adopted pod's claim deleted", func() (bool, error) {
				c, ok := getClaim(t, ns, "www-web-1")
				if !ok || c.DeletionTimestamp != nil {
					return true, nil
				}
				return false, fmt.Errorf("claim owners %v", c.OwnerReferences)
			})
		})
	}
}
