package planner_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// The checks that compare and look up names without building them answer
// as comparing with the built name does, also for names longer than their
// buffers and for ordinals a name cannot carry.
func TestNameChecksAgreeWithTheNamesTheyDoNotBuild(t *testing.T) {
	long := strings.Repeat("s", 120)
	sets := []string{"web", "my-web", "", long}
	templates := []string{"data", "", "a-b", long}
	ordinals := []int32{0, 7, 10, 123456, 2147483647, -1}
	names := []string{"web-7", "web-07", "data-web-7", "data-web-07", "web-", "-7", "data--7", "web-7-", long + "-7",
		"data-" + long + "-123456", long + "-" + long + "-0", "a-b-my-web-10", "a-b-web-2147483647", "web--1"}
	for _, set := range sets {
		for _, ord := range ordinals {
			pod := planner.PodName(set, ord)
			for _, name := range append(names, pod) {
				if got, want := planner.IsPodName(name, set, ord), name == pod; got != want {
					t.Errorf("IsPodName(%q, %q, %d) = %t, want %t", name, set, ord, got, want)
				}
			}
			for _, tmpl := range templates {
				claim := planner.ClaimName(tmpl, set, ord)
				if claim != tmpl+"-"+pod {
					t.Errorf("ClaimName(%q, %q, %d) = %q, want %q", tmpl, set, ord, claim, tmpl+"-"+pod)
				}
				claims := map[string]*corev1.PersistentVolumeClaim{claim: {ObjectMeta: metav1.ObjectMeta{Name: claim}}}
				if got := planner.ClaimAt(claims, tmpl, set, ord); got == nil || got.Name != claim {
					t.Errorf("ClaimAt(%q, %q, %d) = %v, want the claim %q", tmpl, set, ord, got, claim)
				}
				for _, name := range append(names, claim) {
					if got, want := planner.IsClaimName(name, tmpl, set, ord), name == claim; got != want {
						t.Errorf("IsClaimName(%q, %q, %q, %d) = %t, want %t", name, tmpl, set, ord, got, want)
					}
				}
			}
		}
	}
	if got := planner.PodName("web", -1); got != "web--1" {
		t.Errorf("PodName(web, -1) = %q, want web--1", got)
	}
}
