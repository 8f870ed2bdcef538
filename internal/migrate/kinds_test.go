package migrate

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// A status carry cut short (Ctrl-C, or the migration's timeout, during
// the write) is an error, so the migration stops and says where it is
// instead of reporting the new set as carrying the rollout state.
func TestAnInterruptedStatusCarryIsAnError(t *testing.T) {
	for _, cut := range []error{context.Canceled, context.DeadlineExceeded} {
		client := fake.NewClientset(appsSet())
		client.PrependReactor("update", "statefulsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.GetSubresource() != "status" {
				return false, nil, nil
			}
			return true, nil, fmt.Errorf("Put \"https://127.0.0.1/apis/apps/v1/namespaces/shop/statefulsets/web/status\": %w", cut)
		})
		err := appsSets{client, "shop"}.carryStatus(context.Background(), "web", "web-1", nil)
		if !errors.Is(err, cut) {
			t.Errorf("cut short by %v: carryStatus returned %v", cut, err)
		}
	}
}
