package planner_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// The plan of a 1000-pod Parallel set with one claim each, at the end of
// its scale-up: every pod created, half of them Ready, half still
// Pending, as the pod events that follow the creates find it. Each pod is
// named, checked for identity and storage, and its claims looked up (a
// Pending pod's twice: restored, then repaired), on every sync.
func BenchmarkAPlanOfAThousandPodSetScalingUp(b *testing.B) {
	f := steady(testgen.Replicas(1000), testgen.Parallel(), testgen.ClaimTemplates("data"))
	var pods []*corev1.Pod
	var claims []*corev1.PersistentVolumeClaim
	for i := range int32(1000) {
		opts := []testgen.PodOption{}
		if i%2 == 1 {
			opts = append(opts, testgen.Pending())
		}
		pods = append(pods, f.pod(i, opts...))
		claims = append(claims, testgen.Claim(f.set, "data", i))
	}
	in := f.input(pods, claims...)
	b.ReportAllocs()
	defer testgen.ReportCPU(b)()
	for b.Loop() {
		if plan := planner.Compute(in); plan.Status.Replicas != 1000 {
			b.Fatalf("the plan counts %d pods, want 1000", plan.Status.Replicas)
		}
	}
}

// BenchmarkAPlanOfAThousandPodScaleUpMidWay is a Parallel scale-up to 1000
// with its first 200 pods made, planned as an unthrottled controller plans
// it (up to MaxCreates missing pods) and as one at QPS 20 / burst 30 does
// (CreateLimit 101: what one sync of that client can start in its budget).
func BenchmarkAPlanOfAThousandPodScaleUpMidWay(b *testing.B) {
	f := steady(testgen.Replicas(1000), testgen.Parallel(), testgen.ClaimTemplates("data"))
	var pods []*corev1.Pod
	var claims []*corev1.PersistentVolumeClaim
	for i := range int32(200) {
		pods = append(pods, f.pod(i, testgen.Pending()))
		claims = append(claims, testgen.Claim(f.set, "data", i))
	}
	for _, limit := range []int{0, 101} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			in := f.input(pods, claims...)
			in.CreateLimit = limit
			b.ReportAllocs()
			defer testgen.ReportCPU(b)()
			for b.Loop() {
				if plan := planner.Compute(in); plan.Status.Replicas != 200 {
					b.Fatalf("the plan counts %d pods, want 200", plan.Status.Replicas)
				}
			}
		})
	}
}
