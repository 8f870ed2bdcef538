package nodes

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/utils/lifecycle"
)

// After warmStages, kwok's workers may build stage environments
// concurrently: many goroutines matching fresh lifecycles of every stage at
// once. hack/test.sh also runs this test under the race detector, which
// reports the unlocked map writes in easycel when warmStages is left out.
func TestStagesMatchConcurrentlyAfterWarmUp(t *testing.T) {
	stages, err := loadStages(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	warmStages(context.Background(), stages)
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		for ref, list := range stages {
			wg.Add(1)
			go func(kind string, list []*internalversion.Stage) {
				defer wg.Done()
				var data any = &corev1.Node{}
				if kind == "Pod" {
					data = &corev1.Pod{}
				}
				lc, err := lifecycle.NewLifecycle(list)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = lc.Match(context.Background(), &lifecycle.Event{Data: data})
			}(ref.Kind, list)
		}
	}
	wg.Wait()
}
