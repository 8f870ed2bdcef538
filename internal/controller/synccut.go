package controller

import (
	"errors"
	"math"
	"time"
)

// burstBudget is how long a sync may spend on one step's slow-start
// batches before it stops at the next batch boundary, writes its status
// and requeues at once (errCutShort). A Parallel scale-up of hundreds of
// pods at QPS 20 is otherwise one sync of tens of seconds, and the set's
// status, written when a sync ends, counts none of the pods that turned
// Ready meanwhile: mid-way through 200 pods, 93 Ready pods on average
// were missing from status.readyReplicas, against upstream's 77. The
// next sync plans the rest from the cache, as after a sync that
// planner.MaxCreates cut short; which pods are made is the same.
const burstBudget = 2 * statusDebounce

// errCutShort ends a sync's pod actions at a batch boundary once the
// sync has spent burstBudget on them. It is not a failure: the sync
// writes its status as usual and requeues after cacheLagRequeue.
var errCutShort = errors.New("cut short after the sync's time budget, to write status")

// cutShort reports whether err is (or wraps) errCutShort.
func cutShort(err error) bool { return errors.Is(err, errCutShort) }

// overBudget reports whether a sync whose pod actions began at began has
// spent its budget by now; a budget of 0 never runs out.
func overBudget(budget time.Duration, began, now time.Time) bool {
	return budget > 0 && now.Sub(began) >= budget
}

// CreateLimit is how many missing pods a sync of a client with this QPS
// and burst can start creating before burstBudget runs out, plus one:
// every pod takes at least one write, the token bucket allows at most
// burst + qps × burstBudget of them in that time, and at most burst more
// pods are in flight when the budget ends (Options.BurstInFlight). A plan
// built to that many missing pods (planner.Input.CreateLimit) holds every
// pod the sync can get to, so what the sync creates is the same; it only
// no longer builds the hundreds it cannot. 0, unthrottled, is no limit.
func CreateLimit(qps float32, burst int) int { return createLimit(qps, burst, burstBudget) }

func createLimit(qps float32, burst int, budget time.Duration) int {
	if qps <= 0 {
		return 0
	}
	burst = max(burst, 1)
	return 2*burst + int(math.Ceil(float64(qps)*budget.Seconds())) + 1
}
