package doctor

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const checkRBACName = "RBAC"

// account is the controller's ServiceAccount and where it needs its
// permissions.
type account struct {
	namespace, name string
	// scope is the one namespace the controller manages; empty for all.
	scope string
	// leaseNamespace and leaseName are the Lease it needs LeasePermissions
	// on; the namespace is empty when it runs without leader election.
	leaseNamespace, leaseName string
	// extendedOnly leaves out the calls on apps/v1 StatefulSets, which a
	// controller with --manage-apps-v1=false does not make.
	extendedOnly bool
	// secureMetrics adds MetricsAuthPermissions: the controller serves
	// /metrics with --metrics-secure, as it does unless its pod says
	// otherwise.
	secureMetrics bool
}

func (a account) String() string { return a.namespace + "/" + a.name }

func (a account) where() string {
	if a.scope == "" {
		return "in all namespaces"
	}
	return "in namespace " + a.scope
}

// checkRBAC asks the API server, one SubjectAccessReview per verb, whether
// the controller's ServiceAccount may make every call it makes: the answer
// of the authorizer itself, whatever roles and bindings grant it.
func (d *Doctor) checkRBAC(ctx context.Context, lease leaseSeen) Result {
	acct := d.controllerAccount(ctx, lease)
	_, err := d.client.CoreV1().ServiceAccounts(acct.namespace).Get(ctx, acct.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Result{Check: checkRBACName, Status: Fail, Message: fmt.Sprintf(
			"ServiceAccount %s does not exist: install Ordinal, or pass --service-account", acct)}
	}
	denied, calls, err := d.denied(ctx, acct)
	if err != nil {
		return couldNot(checkRBACName, "creating SubjectAccessReviews", err)
	}
	if len(denied) > 0 {
		return Result{Check: checkRBACName, Status: Fail, Message: fmt.Sprintf(
			"%s may not %s %s", acct, strings.Join(denied, ", "), acct.where())}
	}
	return Result{Check: checkRBACName, Status: OK, Message: fmt.Sprintf("%s may make all %d calls the controller makes %s", acct, calls, acct.where())}
}

// controllerAccount is --service-account, else the account of the pod
// holding the Lease (with its --namespace flag), else the default. It
// needs the Lease permission where a Lease was found.
func (d *Doctor) controllerAccount(ctx context.Context, lease leaseSeen) account {
	acct := account{leaseNamespace: lease.namespace, leaseName: lease.name, extendedOnly: lease.extendedOnly, secureMetrics: true}
	if acct.leaseName == "" {
		acct.leaseName = DefaultLeaseName
	}
	acct.namespace, acct.name, _ = splitName(DefaultServiceAccount)
	if d.opts.ServiceAccount != "" {
		acct.namespace, acct.name, _ = splitName(d.opts.ServiceAccount)
	} else if pod := d.holderPod(ctx, lease.renewed); pod != nil {
		acct.namespace, acct.name, acct.scope = pod.Namespace, pod.Spec.ServiceAccountName, namespaceFlag(pod)
		acct.secureMetrics = secureMetricsFlags(pod)
	}
	return acct
}

// denied returns the calls the account may not make, as "verb resource",
// and how many it asked about.
func (d *Doctor) denied(ctx context.Context, acct account) ([]string, int, error) {
	type ask struct {
		p  Permission
		ns string
	}
	asks := make([]ask, 0, len(ControllerPermissions)+len(LeasePermissions))
	for _, p := range ControllerPermissions {
		if (!p.ClusterOnly || acct.scope == "") && (!p.AppsV1Only || !acct.extendedOnly) {
			asks = append(asks, ask{p, acct.scope})
		}
	}
	if acct.secureMetrics {
		for _, p := range MetricsAuthPermissions {
			asks = append(asks, ask{p, ""})
		}
	}
	if acct.leaseNamespace != "" {
		for _, p := range LeasePermissions {
			asks = append(asks, ask{p, acct.leaseNamespace})
		}
	}
	var denied []string
	calls := 0
	for _, a := range asks {
		for _, verb := range a.p.Verbs {
			calls++
			ok, err := d.allowed(ctx, acct, a.ns, verb, a.p)
			if err != nil {
				return nil, 0, err
			}
			if !ok {
				call := verb + " " + a.p.String()
				if a.p.Named {
					call += " " + acct.leaseName
				}
				denied = append(denied, call)
			}
		}
	}
	return denied, calls, nil
}

func (d *Doctor) allowed(ctx context.Context, acct account, ns, verb string, p Permission) (bool, error) {
	resource, sub, _ := strings.Cut(p.Resource, "/")
	name := ""
	if p.Named {
		name = acct.leaseName
	}
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   "system:serviceaccount:" + acct.namespace + ":" + acct.name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + acct.namespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: ns, Verb: verb, Group: p.Group, Resource: resource, Subresource: sub, Name: name},
	}}
	got, err := d.client.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return got.Status.Allowed, nil
}

// String is kubectl's spelling: resource.group/subresource.
func (p Permission) String() string {
	resource, sub, hasSub := strings.Cut(p.Resource, "/")
	if p.Group != "" {
		resource += "." + p.Group
	}
	if hasSub {
		resource += "/" + sub
	}
	return resource
}
