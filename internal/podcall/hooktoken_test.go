package podcall

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Each call carries the configured ServiceAccount's token, requested with
// the hooks' audience and the set's namespace's, for 10 minutes, and
// reused until less than 3 minutes of it are left.
func TestAHookCallCarriesTheCallerToken(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	sa := types.NamespacedName{Namespace: "ordinal-system", Name: "ordinal-controller"}
	h, client, a := hookCallTo(t, srv.URL, HookOptions{AllowCIDRs: loopback, TokenServiceAccount: sa})
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	h.tokens.now = func() time.Time { return now }
	var requests []*authenticationv1.TokenRequest
	client.PrependReactor("create", "serviceaccounts", func(action k8stesting.Action) (bool, runtime.Object, error) {
		create := action.(k8stesting.CreateActionImpl)
		if action.GetSubresource() != "token" || action.GetNamespace() != sa.Namespace || create.Name != sa.Name {
			t.Errorf("%s %s/%s of %s, want the token of %s", action.GetVerb(), action.GetResource().Resource, action.GetSubresource(), action.GetNamespace(), sa)
		}
		req := create.GetObject().(*authenticationv1.TokenRequest)
		requests = append(requests, req)
		tr := req.DeepCopy()
		tr.Status = authenticationv1.TokenRequestStatus{Token: "token-" + string(rune('0'+len(requests))),
			ExpirationTimestamp: metav1.NewTime(now.Add(time.Duration(*req.Spec.ExpirationSeconds) * time.Second))}
		return true, tr, nil
	})
	call := func(attempt int32) {
		next := a
		c := *a.Call
		c.Request.Attempt = attempt
		next.Call = &c
		h.start(context.Background(), "ns/web", next)
		settled(t, h)
	}
	call(1)
	now = now.Add(6 * time.Minute) // 4 minutes left: reused
	call(2)
	now = now.Add(2 * time.Minute) // 2 minutes left: renewed
	call(3)

	if want := []string{"Bearer token-1", "Bearer token-1", "Bearer token-2"}; !slices.Equal(got, want) {
		t.Errorf("Authorization headers %q, want %q", got, want)
	}
	if len(requests) != 2 {
		t.Fatalf("%d TokenRequests, want 2", len(requests))
	}
	spec := requests[0].Spec
	if !slices.Equal(spec.Audiences, []string{v1alpha1.HookTokenAudience, v1alpha1.HookTokenAudience + "/ns"}) || *spec.ExpirationSeconds != 600 {
		t.Errorf("TokenRequest for audiences %q lasting %ds, want %s and %s/ns, 600s", spec.Audiences, *spec.ExpirationSeconds, v1alpha1.HookTokenAudience, v1alpha1.HookTokenAudience)
	}
}

// Without a ServiceAccount configured a call carries no Authorization
// header; when the token cannot be had, the call is not made.
func TestAHookCallWithoutAToken(t *testing.T) {
	var mu sync.Mutex
	var calls int
	var header []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		header = r.Header.Values("Authorization")
	}))
	t.Cleanup(srv.Close)
	h, client, a := hookCallTo(t, srv.URL, HookOptions{AllowCIDRs: loopback})
	state, _ := callOnce(t, h, client, a)
	mu.Lock()
	if state != v1alpha1.HookDone || len(header) != 0 {
		t.Errorf("without a ServiceAccount: labelled %s, Authorization %q; want Done, none", state, header)
	}
	mu.Unlock()
	h, client, a = hookCallTo(t, srv.URL, HookOptions{AllowCIDRs: loopback, TokenServiceAccount: types.NamespacedName{Namespace: "ordinal-system", Name: "gone"}})
	client.PrependReactor("create", "serviceaccounts", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "serviceaccounts"}, "gone", nil)
	})
	_, rec := callOnce(t, h, client, a)
	mu.Lock()
	defer mu.Unlock()
	if rec.LastError != "no caller token: the TokenRequest for ServiceAccount ordinal-system/gone failed" || calls != 1 {
		t.Errorf("token refused: recorded %q after %d calls; want the fixed reason, no call", rec.LastError, calls)
	}
}
