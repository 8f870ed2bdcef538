package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// apiStub answers every request with the set web and records the methods
// it received.
type apiStub struct {
	mu      sync.Mutex
	methods []string
}

func (a *apiStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.methods = append(a.methods, r.Method)
	a.mu.Unlock()
	set := testgen.StatefulSet("web")
	set.APIVersion, set.Kind = "apps/v1", "StatefulSet"
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(set)
}

func (a *apiStub) received() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.methods...)
}

func TestAReadOnlyClientSendsReadsAndRefusesWrites(t *testing.T) {
	ctx := context.Background()
	writes := map[string]func(kubernetes.Interface) error{
		"create": func(c kubernetes.Interface) error {
			_, err := c.AppsV1().StatefulSets("default").Create(ctx, testgen.StatefulSet("web"), metav1.CreateOptions{})
			return err
		},
		"update": func(c kubernetes.Interface) error {
			_, err := c.AppsV1().StatefulSets("default").Update(ctx, testgen.StatefulSet("web"), metav1.UpdateOptions{})
			return err
		},
		"patch": func(c kubernetes.Interface) error {
			_, err := c.AppsV1().StatefulSets("default").Patch(ctx, "web", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
			return err
		},
		"delete": func(c kubernetes.Interface) error {
			return c.CoreV1().Pods("default").Delete(ctx, "web-0", metav1.DeleteOptions{})
		},
	}
	client := func(t *testing.T, readOnly bool) (kubernetes.Interface, *apiStub) {
		stub := &apiStub{}
		srv := httptest.NewServer(stub)
		t.Cleanup(srv.Close)
		c, err := kubernetes.NewForConfig(clientConfig(&rest.Config{Host: srv.URL}, readOnly))
		if err != nil {
			t.Fatal(err)
		}
		return c, stub
	}
	t.Run("read-only, a get reaches the API and every write is Forbidden before it leaves", func(t *testing.T) {
		c, stub := client(t, true)
		if _, err := c.AppsV1().StatefulSets("default").Get(ctx, "web", metav1.GetOptions{}); err != nil {
			t.Fatalf("get: %v", err)
		}
		for name, write := range writes {
			err := write(c)
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "read-only") {
				t.Errorf("%s: %v, want Forbidden saying read-only", name, err)
			}
		}
		if got := stub.received(); len(got) != 1 || got[0] != http.MethodGet {
			t.Errorf("the API received %v, want only the GET", got)
		}
	})
	t.Run("not read-only, the writes reach the API", func(t *testing.T) {
		c, stub := client(t, false)
		for name, write := range writes {
			if err := write(c); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		if got := stub.received(); len(got) != len(writes) {
			t.Errorf("the API received %v, want %d writes", got, len(writes))
		}
	})
}

// authorizing makes api answer SubjectAccessReviews as an API server's
// RBAC authorizer would, from the ClusterRoles and ClusterRoleBindings it
// holds, once lag reviews have been refused (an authorizer whose cache
// has not yet seen the grant).
func authorizing(api *fake.Clientset, lag int) *atomic.Int32 {
	var reviews atomic.Int32
	api.PrependReactor("create", "subjectaccessreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
		review := a.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview).DeepCopy()
		if int(reviews.Add(1)) <= lag {
			return true, review, nil
		}
		// The tracker, not the clientset: a reactor runs under the fake's lock.
		attrs, rbac := review.Spec.ResourceAttributes, rbacv1.SchemeGroupVersion
		listed, err := api.Tracker().List(rbac.WithResource("clusterrolebindings"), rbac.WithKind("ClusterRoleBinding"), "")
		if err != nil {
			return true, nil, err
		}
		for _, b := range listed.(*rbacv1.ClusterRoleBindingList).Items {
			if !slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool { return s.Kind == "User" && s.Name == review.Spec.User }) {
				continue
			}
			obj, err := api.Tracker().Get(rbac.WithResource("clusterroles"), "", b.RoleRef.Name)
			if err != nil {
				continue
			}
			for _, r := range obj.(*rbacv1.ClusterRole).Rules {
				if slices.Contains(r.APIGroups, attrs.Group) && slices.Contains(r.Resources, attrs.Resource) && slices.Contains(r.Verbs, attrs.Verb) {
					review.Status.Allowed = true
				}
			}
		}
		return true, review, nil
	})
	return &reviews
}

// GrantReadOnly returns once the API server allows what it granted: an
// authorizer that has not seen the grant yet keeps it waiting, and one
// that never allows it fails it with the read it refuses.
func TestGrantReadOnlyWaitsUntilTheAuthorizerAllowsIt(t *testing.T) {
	api := fake.NewClientset()
	reviews := authorizing(api, 3)
	if err := GrantReadOnly(context.Background(), api); err != nil {
		t.Fatal(err)
	}
	if n := reviews.Load(); n < 3+6 {
		t.Errorf("GrantReadOnly returned after %d reviews; want the 3 refused and one allowed list of each of the 6 resources", n)
	}

	never := fake.NewClientset()
	authorizing(never, 1<<30)
	err := awaitGrant(context.Background(), never, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "still refused user "+ReadOnlyUser+" a list of statefulsets.apps") {
		t.Errorf("an authorizer that never allows the grant: %v; want an error naming the refused read", err)
	}
}

func TestGrantReadOnlyAllowsTheDashboardsReadsAndNothingElse(t *testing.T) {
	api := fake.NewClientset()
	authorizing(api, 0)
	ctx := context.Background()
	for i := 0; i < 2; i++ { // twice: a restart applies the same objects again
		if err := GrantReadOnly(ctx, api); err != nil {
			t.Fatalf("GrantReadOnly #%d: %v", i+1, err)
		}
	}
	role, err := api.RbacV1().ClusterRoles().Get(ctx, ReadOnlyUser, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	for _, r := range role.Rules {
		if strings.Join(r.Verbs, ",") != "get,list,watch" {
			t.Errorf("rule %v grants verbs %v, want get, list, watch", r, r.Verbs)
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				allowed[res+"."+g] = true
			}
		}
	}
	want := []string{"statefulsets.apps", "controllerrevisions.apps", "pods.", "persistentvolumeclaims.", "events.", "statefulsets.apps.ordinal.dev"}
	for _, w := range want {
		if !allowed[w] {
			t.Errorf("the role does not let the dashboard read %s: %v", w, role.Rules)
		}
	}
	if len(allowed) != len(want) {
		t.Errorf("the role grants %d resources, want the dashboard's %d: %v", len(allowed), len(want), allowed)
	}
	binding, err := api.RbacV1().ClusterRoleBindings().Get(ctx, ReadOnlyUser, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if binding.RoleRef.Name != ReadOnlyUser || len(binding.Subjects) != 1 || binding.Subjects[0].Kind != "User" || binding.Subjects[0].Name != ReadOnlyUser {
		t.Errorf("binding %+v does not bind user %s to its role alone", binding, ReadOnlyUser)
	}
}
