package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

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

func TestGrantReadOnlyAllowsTheDashboardsReadsAndNothingElse(t *testing.T) {
	api := fake.NewClientset()
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
