package doctor

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
)

// reviews answers SubjectAccessReviews with allow and records them.
type reviews struct {
	mu   sync.Mutex
	seen []authorizationv1.SubjectAccessReviewSpec
}

func (r *reviews) answer(client *k8stesting.Fake, allow func(authorizationv1.ResourceAttributes) bool) {
	client.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		review := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview).DeepCopy()
		r.mu.Lock()
		r.seen = append(r.seen, review.Spec)
		r.mu.Unlock()
		review.Status.Allowed = allow(*review.Spec.ResourceAttributes)
		return true, review, nil
	})
}

func serviceAccount(ns, name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
}

func TestRBACNamesEveryCallTheAccountMayNotMake(t *testing.T) {
	d, client := fakeDoctor(t, []runtime.Object{serviceAccount("ordinal-system", "ordinal-controller")})
	var r reviews
	r.answer(&client.Fake, func(a authorizationv1.ResourceAttributes) bool {
		return (a.Group != "apps" || a.Resource != "statefulsets" || a.Subresource != "status") && (a.Resource != "pods" || a.Subresource != "" || a.Verb != "create")
	})
	got := d.checkRBAC(context.Background(), leaseSeen{namespace: "ordinal-system"})
	want := "ordinal-system/ordinal-controller may not update statefulsets.apps/status, create pods in all namespaces"
	if got.Status != Fail || got.Message != want {
		t.Errorf("got %s %q\nwant FAIL %q", got.Status, got.Message, want)
	}
	if len(r.seen) != 69 || r.seen[0].User != "system:serviceaccount:ordinal-system:ordinal-controller" {
		t.Errorf("asked %d reviews, the first for %q; want 69 for the ServiceAccount", len(r.seen), r.seen[0].User)
	}
}

// The account comes from the pod holding the Lease, with the namespace
// its --namespace flag names, when the holder is a pod.
func TestRBACChecksTheAccountOfThePodHoldingTheLease(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "ordinal-controller-7d9f-x2x4k", Namespace: "platform"},
		Spec: corev1.PodSpec{ServiceAccountName: "sts-controller", Containers: []corev1.Container{{Name: "controller",
			Args: []string{"--leader-elect=true", "--namespace=shop"}}}}}
	d, client := fakeDoctor(t, []runtime.Object{pod, serviceAccount("platform", "sts-controller")})
	var r reviews
	r.answer(&client.Fake, func(authorizationv1.ResourceAttributes) bool { return true })
	lease := heldLease("platform", "ordinal-controller-7d9f-x2x4k_5c1e", time.Minute)
	got := d.checkRBAC(context.Background(), leaseSeen{renewed: lease, namespace: "platform"})
	if got.Status != OK || got.Message != "platform/sts-controller may make all 61 calls the controller makes in namespace shop" {
		t.Errorf("got %s %q", got.Status, got.Message)
	}
	for _, s := range r.seen {
		ns := "shop"
		switch s.ResourceAttributes.Resource {
		case "leases":
			ns = "platform"
		case "tokenreviews", "subjectaccessreviews":
			ns = ""
		}
		if s.User != "system:serviceaccount:platform:sts-controller" || s.ResourceAttributes.Namespace != ns {
			t.Errorf("asked for %s in %q, want the pod's account in %q", s.User, s.ResourceAttributes.Namespace, ns)
		}
	}
}

func TestRBACFailsWithoutTheAccountAndCannotTellWithoutReviews(t *testing.T) {
	d, _ := fakeDoctor(t, nil)
	if got := d.checkRBAC(context.Background(), leaseSeen{}); got.Status != Fail ||
		got.Message != "ServiceAccount ordinal-system/ordinal-controller does not exist: install Ordinal, or pass --service-account" {
		t.Errorf("got %s %q", got.Status, got.Message)
	}
	d, client := fakeDoctor(t, []runtime.Object{serviceAccount("ordinal-system", "ordinal-controller")})
	client.PrependReactor("create", "subjectaccessreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}, "",
			errors.New("user bob may not"))
	})
	got := d.checkRBAC(context.Background(), leaseSeen{})
	if got.Status != Unknown || !strings.HasPrefix(got.Message, "cannot check: creating SubjectAccessReviews is forbidden: ") {
		t.Errorf("got %s %q", got.Status, got.Message)
	}
}

// Leader election may read and renew only its own Lease, so the review
// asks about that Lease by name (and about creating one without a name);
// a controller with --manage-apps-v1=false is asked about no call on
// apps/v1 StatefulSets, which it does not make.
func TestRBACAsksForTheLeaseByNameAndNotForAppsV1WhenExtendedOnly(t *testing.T) {
	d, client := fakeDoctor(t, []runtime.Object{serviceAccount("ordinal-system", "ordinal-controller")})
	var r reviews
	r.answer(&client.Fake, func(a authorizationv1.ResourceAttributes) bool {
		return a.Resource != "leases" || a.Verb == "create" || a.Name == "sts-lease"
	})
	got := d.checkRBAC(context.Background(), leaseSeen{namespace: "ordinal-system", name: "sts-lease", extendedOnly: true})
	if got.Status != OK || got.Message != "ordinal-system/ordinal-controller may make all 64 calls the controller makes in all namespaces" {
		t.Errorf("got %s %q", got.Status, got.Message)
	}
	var leases []string
	for _, s := range r.seen {
		a := s.ResourceAttributes
		if a.Group == "apps" && a.Resource == "statefulsets" {
			t.Errorf("asked about %s statefulsets/%s of an extended-only controller", a.Verb, a.Subresource)
		}
		if a.Resource == "leases" {
			leases = append(leases, a.Verb+" "+a.Name)
		}
	}
	if want := []string{"create ", "get sts-lease", "update sts-lease"}; !slices.Equal(leases, want) {
		t.Errorf("asked about leases %q, want %q", leases, want)
	}

	d, client = fakeDoctor(t, []runtime.Object{serviceAccount("ordinal-system", "ordinal-controller")})
	r = reviews{}
	r.answer(&client.Fake, func(a authorizationv1.ResourceAttributes) bool { return a.Resource != "leases" || a.Name == "" })
	got = d.checkRBAC(context.Background(), leaseSeen{namespace: "ordinal-system", name: "sts-lease"})
	want := "ordinal-system/ordinal-controller may not get leases.coordination.k8s.io sts-lease, update leases.coordination.k8s.io sts-lease in all namespaces"
	if got.Status != Fail || got.Message != want {
		t.Errorf("got %s %q\nwant FAIL %q", got.Status, got.Message, want)
	}
}

// The secure metrics port asks the API server about each scraper, so the
// controller's account must create TokenReviews and SubjectAccessReviews
// (cluster-wide, even for a controller of one namespace) unless its pod
// serves metrics without them.
func TestRBACChecksTheMetricsReviewsUnlessThePodServesMetricsPlainOrNone(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--namespace=shop"}, "platform/sts-controller may not create tokenreviews.authentication.k8s.io, create subjectaccessreviews.authorization.k8s.io in namespace shop"},
		{[]string{"--namespace=shop", "--metrics-secure=true", "--metrics-address=:8080"}, "platform/sts-controller may not create tokenreviews.authentication.k8s.io, create subjectaccessreviews.authorization.k8s.io in namespace shop"},
		{[]string{"--namespace=shop", "--metrics-secure=false"}, "platform/sts-controller may make all 59 calls the controller makes in namespace shop"},
		{[]string{"--namespace=shop", "--metrics-address="}, "platform/sts-controller may make all 59 calls the controller makes in namespace shop"},
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "ordinal-controller-7d9f-x2x4k", Namespace: "platform"},
			Spec: corev1.PodSpec{ServiceAccountName: "sts-controller", Containers: []corev1.Container{{Name: "controller", Args: tc.args}}}}
		d, client := fakeDoctor(t, []runtime.Object{pod, serviceAccount("platform", "sts-controller")})
		var r reviews
		r.answer(&client.Fake, func(a authorizationv1.ResourceAttributes) bool {
			return a.Resource != "tokenreviews" && a.Resource != "subjectaccessreviews"
		})
		lease := heldLease("platform", "ordinal-controller-7d9f-x2x4k_5c1e", time.Minute)
		if got := d.checkRBAC(context.Background(), leaseSeen{renewed: lease, namespace: "platform"}); got.Message != tc.want {
			t.Errorf("args %q: %s %q\nwant %q", tc.args, got.Status, got.Message, tc.want)
		}
	}
}
