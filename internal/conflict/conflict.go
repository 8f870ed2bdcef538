// Package conflict retries a read-modify-write of a Kubernetes object
// when the API server answers with a conflict.
package conflict

import "k8s.io/client-go/util/retry"

// Retry runs fn until it succeeds, fails with anything but a conflict, or
// the default retries (5, from 10 ms apart) run out, and returns fn's last
// error.
//
// retry.RetryOnConflict alone counts an error that wraps a cancelled or
// expired context as the end of its retries and returns the last conflict
// before it, which is nil when the first try was the one cut short: a
// write that never happened would pass for done.
func Retry(fn func() error) error {
	var last error
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		last = fn()
		return last
	})
	if last != nil {
		return last
	}
	return err
}
