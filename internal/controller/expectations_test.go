package controller

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestExpectations(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", UID: "new"}}
	missing := func(string) (*corev1.Pod, bool) { return nil, false }
	t.Run("a created pod the cache has not shown yet is pending", func(t *testing.T) {
		e := newExpectations(&memories{}, time.Now)
		e.created("ns/web", pod)
		if got := e.pending("ns/web", missing); got != "web-0" {
			t.Fatalf("pending = %q, want web-0", got)
		}
	})
	t.Run("a created pod deleted before the cache showed it is not pending", func(t *testing.T) {
		e := newExpectations(&memories{}, time.Now)
		e.created("ns/web", pod)
		e.observedDeletion("ns/web", "web-0", "new")
		if got := e.pending("ns/web", missing); got != "" {
			t.Fatalf("pending = %q, want none", got)
		}
	})
	t.Run("a deletion seen before the creation is recorded satisfies it", func(t *testing.T) {
		e := newExpectations(&memories{}, time.Now)
		e.observedDeletion("ns/web", "web-0", "new")
		e.created("ns/web", pod)
		if got := e.pending("ns/web", missing); got != "" {
			t.Fatalf("pending = %q, want none", got)
		}
	})
	t.Run("the deletion of an older pod of the same name does not satisfy it", func(t *testing.T) {
		e := newExpectations(&memories{}, time.Now)
		e.created("ns/web", pod)
		e.observedDeletion("ns/web", "web-0", "old")
		if got := e.pending("ns/web", missing); got != "web-0" {
			t.Fatalf("pending = %q, want web-0", got)
		}
	})
}
