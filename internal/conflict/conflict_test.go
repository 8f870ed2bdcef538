package conflict

import (
	"context"
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
)

// A write cut short by a cancelled or expired context is not a write, a
// conflict is tried again, and anything else ends the retries with its
// error. The first three cases fail with retry.RetryOnConflict alone: it
// returns nil for the first two and the earlier conflict for the third.
func TestACutShortWriteIsNotDone(t *testing.T) {
	cancelled := fmt.Errorf("updating: %w", context.Canceled)
	expired := fmt.Errorf("reading: %w", context.DeadlineExceeded)
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, "web", errors.New("changed"))
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, "web", errors.New("no"))
	always := make([]error, retry.DefaultRetry.Steps)
	for i := range always {
		always[i] = conflict
	}
	cases := []struct {
		name  string
		tries []error
		want  func(error) bool
	}{
		{"cancelled at once", []error{cancelled}, is(context.Canceled)},
		{"expired at once", []error{expired}, is(context.DeadlineExceeded)},
		{"cancelled after a conflict", []error{conflict, cancelled}, is(context.Canceled)},
		{"forbidden", []error{forbidden}, apierrors.IsForbidden},
		{"conflicts to the end", always, apierrors.IsConflict},
		{"written after a conflict", []error{conflict, nil}, isNil},
		{"written", []error{nil}, isNil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			err := Retry(func() error {
				calls++
				return c.tries[calls-1]
			})
			if !c.want(err) {
				t.Errorf("got %v", err)
			}
			if calls != len(c.tries) {
				t.Errorf("%d tries, want %d", calls, len(c.tries))
			}
		})
	}
}

func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

func isNil(err error) bool { return err == nil }
