package controller

import (
	"context"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// claimAccessTTL is how long the controller trusts an answer about its
// permission to delete claims in a namespace: a RoleBinding added (or
// removed) takes effect within it, when a plan waiting for it is made
// again.
const claimAccessTTL = planner.PermissionRecheck

// claimAccess says in which namespaces the controller may delete
// PersistentVolumeClaims, which it does only for volumes: Recreate. The
// chart and config/ grant it per namespace (a RoleBinding of the
// claim-deleter ClusterRole), so it asks the API server, with a
// SelfSubjectAccessReview (which any account may create), once per
// namespace and claimAccessTTL; a delete refused as Forbidden counts as an
// answer too. Safe for concurrent use.
type claimAccess struct {
	client kubernetes.Interface
	now    func() time.Time
	mu     sync.Mutex
	seen   map[string]accessAnswer
}

type accessAnswer struct {
	permission planner.Permission
	at         time.Time
}

func newClaimAccess(client kubernetes.Interface, now func() time.Time) *claimAccess {
	return &claimAccess{client: client, now: now, seen: map[string]accessAnswer{}}
}

// permission is whether the controller may delete claims in namespace ns:
// the last answer younger than claimAccessTTL, or a new one. An answer
// that cannot be had is not known, and is asked again next time.
func (a *claimAccess) permission(ctx context.Context, ns string) planner.Permission {
	a.mu.Lock()
	ans, ok := a.seen[ns]
	a.mu.Unlock()
	if ok && a.now().Sub(ans.at) < claimAccessTTL {
		return ans.permission
	}
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "delete", Resource: "persistentvolumeclaims"}}}
	got, err := a.client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return ""
	}
	p := planner.PermissionDenied
	if got.Status.Allowed {
		p = planner.PermissionAllowed
	}
	a.remember(ns, p)
	return p
}

// denied records that a claim delete in ns was refused as Forbidden.
func (a *claimAccess) denied(ns string) { a.remember(ns, planner.PermissionDenied) }

func (a *claimAccess) remember(ns string, p planner.Permission) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen[ns] = accessAnswer{permission: p, at: a.now()}
}
