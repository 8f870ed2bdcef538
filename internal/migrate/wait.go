package migrate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// pollInterval is how often the waits look again.
const pollInterval = 200 * time.Millisecond

// broken is a pod or revision that is gone or was replaced while the
// migration waited, or a new set that would update its pods: the promise
// of no restart is broken, so the wait stops at once.
type broken string

func (b broken) Error() string { return string(b) }

func isBroken(err error) bool {
	var b broken
	return errors.As(err, &b)
}

// poll runs check until it reports done, reports a broken promise, or
// timeout passes; then the error names what, the last reason check gave
// and any error after it (but not a call that failed because the time ran
// out).
func poll(ctx context.Context, timeout time.Duration, what string, check func(context.Context) (string, error)) error {
	var reason string
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		r, err := check(ctx)
		switch {
		case isBroken(err):
			return false, err
		case err != nil && ctx.Err() == nil:
			lastErr = err
			return false, nil
		case err != nil:
			return false, nil
		}
		reason, lastErr = r, nil
		return r == "", nil
	})
	switch {
	case err == nil:
		return nil
	case isBroken(err):
		return err
	}
	seen := reason
	if lastErr != nil {
		seen = strings.TrimPrefix(reason+"; then: ", "; then: ") + lastErr.Error()
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted while waiting for %s; last seen: %s", what, seen)
	}
	return fmt.Errorf("waited %s for %s; last seen: %s", timeout, what, seen)
}
