package rollout_test

import (
	"fmt"
	"testing"
)

// Polling fast, status spends the client's token bucket (client-go's
// default 5 requests a second), and near --timeout the bucket refuses a
// request whose wait for a token would outlast the deadline. That refusal
// is the timeout (exit 6, with the last state seen), not a failed request
// (exit 1, "client rate limiter Wait returned an error").
func TestStatusTimesOutWhileTheClientIsThrottled(t *testing.T) {
	ns := namespace(t)
	createWeb(t, ns)
	patchSet(t, ns, fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{%q:"never-ready"}}}}}`, behaviorKey))
	r := ordinal(t, ns, "rollout", "status", "web", "--timeout", "3s", "--interval", "10ms")
	if r.code != 6 {
		t.Fatalf("status exited %d, want 6 (timed out); stderr: %s", r.code, r.err)
	}
	mustContain(t, "status error", r.err, "ordinal: timed out after 3s: ", "run `ordinal rollout plan web` for why")
}
