package migrate

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/setops"
)

// permission is one verb on one resource a migration uses.
type permission struct {
	verb, group, resource, subresource string
}

func (p permission) String() string {
	r := p.resource
	if p.subresource != "" {
		r += "/" + p.subresource
	}
	if p.group != "" {
		r += "." + p.group
	}
	return p.verb + " " + r
}

// permissions are the calls the migration makes, from the first read to
// the last wait.
func (p *Plan) permissions() []permission {
	from, to := p.From.Group(), p.To.Group()
	out := []permission{
		{"get", from, "statefulsets", ""}, {"delete", from, "statefulsets", ""},
		{"get", to, "statefulsets", ""}, {"create", to, "statefulsets", ""}, {"update", to, "statefulsets", "status"},
		{"get", "", "pods", ""}, {"list", "", "pods", ""}, {"list", "", "persistentvolumeclaims", ""},
		{"get", "apps", "controllerrevisions", ""}, {"list", "apps", "controllerrevisions", ""},
	}
	if p.To == setops.AppsV1 {
		// budgetRefusals reads the budgets apps/v1 would not ask.
		out = append(out, permission{"list", "policy", "poddisruptionbudgets", ""})
	}
	return out
}

// checkAccess asks the API server whether the user may make every call
// of the migration, so that a missing permission stops it before the
// delete rather than half-way.
func (p *Plan) checkAccess(ctx context.Context, c Clients) error {
	var denied []string
	for _, perm := range p.permissions() {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: p.Namespace, Verb: perm.verb,
				Group: perm.group, Resource: perm.resource, Subresource: perm.subresource},
		}}
		got, err := c.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("checking the permission to %s: %w", perm, err)
		}
		if !got.Status.Allowed {
			denied = append(denied, perm.String())
		}
	}
	if len(denied) > 0 {
		return fmt.Errorf("not migrating %s: you may not %s in namespace %s; nothing was changed",
			p.FromRef(), strings.Join(denied, ", "), p.Namespace)
	}
	return nil
}
