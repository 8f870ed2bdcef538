package controller

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// A sync reads, per template, the claims of the set's ordinals and of the
// ordinals its pods hold past them, by their canonical names only; claims
// of other ordinals, names with leading zeros and other namespaces' claims
// are not its own.
func TestASyncReadsTheClaimsOfItsOrdinalsAndOfThePodsPastThem(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.ClaimTemplates("data", "logs"))
	var objs []runtime.Object
	for _, c := range []*corev1.PersistentVolumeClaim{
		testgen.Claim(set, "data", 0), testgen.Claim(set, "data", 2), testgen.Claim(set, "logs", 1),
		testgen.Claim(set, "data", 5), testgen.Claim(set, "data", 6), testgen.Claim(set, "logs", 6),
	} {
		objs = append(objs, c)
	}
	zeros := testgen.Claim(set, "data", 1)
	zeros.Name = "data-web-01"
	elsewhere := testgen.Claim(set, "data", 1)
	elsewhere.Namespace = "other"
	objs = append(objs, zeros, elsewhere)
	c, _ := newTestController(t, objs...)
	pods := []*corev1.Pod{testgen.Pod(set, 0), testgen.Pod(set, 6), testgen.Pod(set, 1, testgen.Named("web-01"))}

	got := c.claimsFor(set, pods, nil, newBuilder(nil))
	names := slices.Sorted(func(yield func(string) bool) {
		for name, claim := range got {
			if name != claim.Name || !yield(name) {
				return
			}
		}
	})
	want := []string{"data-web-0", "data-web-2", "data-web-6", "logs-web-1", "logs-web-6"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("claims read (-want +got):\n%s", diff)
	}
}
