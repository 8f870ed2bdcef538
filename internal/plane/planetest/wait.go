package planetest

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// WaitFor polls cond every 100ms until it reports done or timeout passes,
// then fails the test with the last reason cond gave. cond's error is
// only read when it reports not done: it says "not yet, because …".
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		ok, err := cond()
		if ok {
			return true, nil
		}
		last = err
		return false, nil
	})
	if err != nil {
		t.Fatalf("waited %s for %s: last seen: %v", timeout, what, last)
	}
}
