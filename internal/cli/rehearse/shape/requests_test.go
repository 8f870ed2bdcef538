package shape

import (
	"context"
	"net/http"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func TestRequestsAreNamedByVerbAndResource(t *testing.T) {
	for _, tt := range []struct {
		method, path, watch string
		want                Request
	}{
		{"GET", "/apis/apps/v1/namespaces/shop/statefulsets/web", "", Request{"get", "statefulsets"}},
		{"GET", "/api/v1/namespaces/shop/pods", "", Request{"list", "pods"}},
		{"GET", "/api/v1/namespaces/shop/pods", "true", Request{"watch", "pods"}},
		{"GET", "/api/v1/watch/namespaces/shop/pods", "", Request{"watch", "pods"}},
		{"GET", "/api/v1/nodes", "", Request{"list", "nodes"}},
		{"GET", "/api/v1/namespaces/shop", "", Request{"get", "namespaces"}},
		{"GET", "/version", "", Request{"get", "/version"}},
		{"GET", "/apis/apps/v1", "", Request{"get", "/apis/apps/v1"}},
		{"POST", "/api/v1/namespaces/shop/pods", "", Request{"create", "pods"}},
		{"POST", "/api/v1/namespaces/shop/pods/web-0/eviction", "", Request{"create", "pods/eviction"}},
		{"PUT", "/apis/apps/v1/namespaces/shop/statefulsets/web/status", "", Request{"update", "statefulsets/status"}},
		{"PATCH", "/apis/apps.ordinal.dev/v1alpha1/namespaces/shop/statefulsets/web", "", Request{"patch", "statefulsets"}},
		{"DELETE", "/api/v1/namespaces/shop/pods/web-1", "", Request{"delete", "pods"}},
		{"DELETE", "/api/v1/namespaces/shop/pods", "", Request{"deletecollection", "pods"}},
	} {
		if got := Classify(tt.method, tt.path, tt.watch); got != tt.want {
			t.Errorf("Classify(%s %s watch=%q) = %+v, want %+v", tt.method, tt.path, tt.watch, got, tt.want)
		}
	}
}

// sent records what reached the transport behind the counter.
type sent struct{ requests []string }

func (s *sent) RoundTrip(req *http.Request) (*http.Response, error) {
	s.requests = append(s.requests, req.Method+" "+req.URL.Path)
	return &http.Response{StatusCode: http.StatusNotFound, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
}

func TestAReadOnlyCounterRefusesWritesBeforeTheyLeave(t *testing.T) {
	behind := &sent{}
	c := NewCounter(true)
	rc := &rest.Config{Host: "https://source.invalid", Transport: behind}
	c.Wrap(rc)
	client := kubernetes.NewForConfigOrDie(rc)
	ctx := context.Background()
	_, _ = client.CoreV1().Pods("shop").Get(ctx, "web-0", metav1.GetOptions{})
	err := client.CoreV1().Pods("shop").Delete(ctx, "web-0", metav1.DeleteOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("a delete through the read-only counter: %v, want Forbidden", err)
	}
	if len(behind.requests) != 1 || behind.requests[0] != "GET /api/v1/namespaces/shop/pods/web-0" {
		t.Errorf("requests that left: %q, want the get alone", behind.requests)
	}
	counts := c.Counts()
	if counts[Request{"get", "pods"}] != 1 || counts[Request{"delete", "pods"}] != 1 {
		t.Errorf("counts %v, want the get and the refused delete", counts)
	}
}

func TestACountingCounterLetsWritesThrough(t *testing.T) {
	behind := &sent{}
	c := NewCounter(false)
	rc := &rest.Config{Host: "https://plane.invalid", Transport: behind}
	c.Wrap(rc)
	_ = kubernetes.NewForConfigOrDie(rc).CoreV1().Pods("shop").Delete(context.Background(), "web-0", metav1.DeleteOptions{})
	if len(behind.requests) != 1 || c.Counts()[Request{"delete", "pods"}] != 1 {
		t.Errorf("requests %q, counts %v; want the delete sent and counted", behind.requests, c.Counts())
	}
}
