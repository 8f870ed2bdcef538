package dashboard

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/setops"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// BenchmarkDetailOfAThousandPodSet is the work of one push of a large
// set's page: the snapshot, the planner's explanation and the JSON.
func BenchmarkDetailOfAThousandPodSet(b *testing.B) {
	set := testgen.StatefulSet("big", testgen.Replicas(1000), testgen.Parallel())
	old := testgen.RevisionOf(set, 1)
	pods := make([]*corev1.Pod, 0, 1000)
	for i := int32(0); i < 1000; i++ {
		pods = append(pods, testgen.Pod(set, i, testgen.At(old)))
	}
	o := observed{kind: &StatefulSets{}, Observed: setops.Observed{Set: set, Pods: pods, Revisions: setops.OwnedRevisions(set, []*appsv1.ControllerRevision{old})}}
	b.ReportAllocs()
	for b.Loop() {
		payload, err := json.Marshal(detail(o, false, testgen.Epoch))
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(payload)))
	}
}
