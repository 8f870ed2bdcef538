package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	rbacac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
)

// ReadOnlyUser is the identity an administrator's read-only dashboard
// takes (StartAsAdmin): the user of the ClusterRole and
// ClusterRoleBinding of the same name, which grant exactly what the pages
// read.
const ReadOnlyUser = "ordinal:dashboard-read-only"

// readOnlyRules are the reads of the dashboard: its watches (store.go) and
// preflight, nothing more (no secrets, no writes).
func readOnlyRules() []*rbacac.PolicyRuleApplyConfiguration {
	read := []string{"get", "list", "watch"}
	return []*rbacac.PolicyRuleApplyConfiguration{
		rbacac.PolicyRule().WithAPIGroups("apps").WithResources("statefulsets", "controllerrevisions").WithVerbs(read...),
		rbacac.PolicyRule().WithAPIGroups("").WithResources("pods", "persistentvolumeclaims", "events").WithVerbs(read...),
		rbacac.PolicyRule().WithAPIGroups(v1alpha1.GroupName).WithResources(v1alpha1.Resource.Resource).WithVerbs(read...),
	}
}

// fieldManager owns the read-only role and binding.
const fieldManager = "ordinal-dashboard"

// GrantReadOnly makes (or brings up to date) the ClusterRole and
// ClusterRoleBinding that let ReadOnlyUser read what the dashboard shows.
// admin must be allowed to manage RBAC.
func GrantReadOnly(ctx context.Context, admin kubernetes.Interface) error {
	labels := map[string]string{"app.kubernetes.io/managed-by": "ordinal"}
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	role := rbacac.ClusterRole(ReadOnlyUser).WithLabels(labels).WithRules(readOnlyRules()...)
	if _, err := admin.RbacV1().ClusterRoles().Apply(ctx, role, opts); err != nil {
		return fmt.Errorf("granting the read-only dashboard its reads: clusterrole %s: %w", ReadOnlyUser, err)
	}
	binding := rbacac.ClusterRoleBinding(ReadOnlyUser).WithLabels(labels).
		WithRoleRef(rbacac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("ClusterRole").WithName(ReadOnlyUser)).
		WithSubjects(rbacac.Subject().WithAPIGroup("rbac.authorization.k8s.io").WithKind("User").WithName(ReadOnlyUser))
	if _, err := admin.RbacV1().ClusterRoleBindings().Apply(ctx, binding, opts); err != nil {
		return fmt.Errorf("granting the read-only dashboard its reads: clusterrolebinding %s: %w", ReadOnlyUser, err)
	}
	return awaitGrant(ctx, admin, grantTimeout)
}

// grantTimeout bounds how long GrantReadOnly waits for the API server's
// authorizer to apply the grant.
const grantTimeout = 30 * time.Second

// awaitGrant waits until the API server allows ReadOnlyUser to list each
// resource its role names: the authorizer reads roles and bindings from
// a cache of its own, so a read sent right after the binding was applied
// can be refused, and the dashboard's preflight would fail on a grant
// that is already made. An admin who may not ask the API server
// (SubjectAccessReview refused) is not kept waiting.
func awaitGrant(ctx context.Context, admin kubernetes.Interface, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	refused := ""
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for _, rule := range readOnlyRules() {
			for _, group := range rule.APIGroups {
				for _, resource := range rule.Resources {
					review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: ReadOnlyUser,
						ResourceAttributes: &authorizationv1.ResourceAttributes{Group: group, Resource: resource, Verb: "list"}}}
					got, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
					switch {
					case apierrors.IsForbidden(err):
						return true, nil
					case err != nil:
						return false, err
					case !got.Status.Allowed:
						refused = schema.GroupResource{Group: group, Resource: resource}.String()
						return false, nil
					}
				}
			}
		}
		return true, nil
	})
	if wait.Interrupted(err) && refused != "" {
		return fmt.Errorf("granting the read-only dashboard its reads: clusterrolebinding %s is in place, but the API server still refused user %s a list of %s when the wait ended (at most %s)",
			ReadOnlyUser, ReadOnlyUser, refused, timeout)
	}
	if err != nil {
		return fmt.Errorf("granting the read-only dashboard its reads: asking the API server whether the grant applies: %w", err)
	}
	return nil
}

// impersonateReadOnly grants ReadOnlyUser its reads and returns a copy of
// admin that acts as that user.
func impersonateReadOnly(ctx context.Context, admin *rest.Config) (*rest.Config, error) {
	client, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, fmt.Errorf("granting the read-only dashboard its reads: %w", err)
	}
	if err := GrantReadOnly(ctx, client); err != nil {
		return nil, err
	}
	rc := rest.CopyConfig(admin)
	rc.Impersonate = rest.ImpersonationConfig{UserName: ReadOnlyUser}
	return rc, nil
}

// readOnlyTransport refuses, before it leaves the process, every request
// but a read (GET, HEAD, OPTIONS: gets, lists, watches and discovery). It
// answers as the API server would refuse it, a Forbidden Status, so
// callers see apierrors.IsForbidden.
type readOnlyTransport struct{ next http.RoundTripper }

func (t readOnlyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return t.next.RoundTrip(req)
	}
	return kubeclient.Refuse(req, "this dashboard is read-only (--read-only), its client sends no writes")
}

// clientConfig is the configuration the server's clients are built from:
// a copy of rc, whose transport refuses writes when the server is
// read-only.
func clientConfig(rc *rest.Config, readOnly bool) *rest.Config {
	rc = rest.CopyConfig(rc)
	if readOnly {
		rc.Wrap(func(next http.RoundTripper) http.RoundTripper { return readOnlyTransport{next} })
	}
	return rc
}
