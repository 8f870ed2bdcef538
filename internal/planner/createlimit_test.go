package planner_test

import (
	"testing"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// createdOrdinals lists the ordinals a plan creates pods at, in order.
func createdOrdinals(plan planner.Plan) []int32 {
	var ords []int32
	for _, s := range plan.Steps {
		for _, a := range s.Actions {
			if a.Kind == planner.CreatePod {
				ords = append(ords, a.Ordinal)
			}
		}
	}
	return ords
}

// A controller that can create only so many pods in one sync's time
// budget says so (Input.CreateLimit), and the plan builds the pods of the
// slow-start batches up to the one holding the limit's pod instead of a
// thousand: the first pods of the full plan, in its order, and no other
// action; the plan says Truncated, as at MaxCreates. 0, or a limit of
// MaxCreates or more, is MaxCreates; a scale-up within the limit is the
// whole plan.
func TestACreateLimitBuildsTheFirstBatchesOfTheFullPlan(t *testing.T) {
	c := hugeCase{name: "apps/v1 Parallel", opts: []testgen.SetOption{testgen.Parallel()}}
	full := planner.Compute(c.input(1500))
	fullOrds := createdOrdinals(full)
	if len(fullOrds) < planner.MaxCreates || !full.Truncated {
		t.Fatalf("without a limit: %d creates, truncated %v; want at least %d, truncated", len(fullOrds), full.Truncated, planner.MaxCreates)
	}
	// Three pods exist, so the batches 1, 2, 4, ... hold pods 0-2 first.
	for _, tc := range []struct {
		limit, creates int
		truncated      bool
	}{
		{limit: 1, creates: 4, truncated: true},    // batches 1 and 2 hold the three pods; the batch of 4 (ordinals 3-6) builds the first
		{limit: 4, creates: 4, truncated: true},    // that batch ends at the fourth
		{limit: 5, creates: 12, truncated: true},   // the batch of 8 (ordinals 7-14) holds the fifth
		{limit: 71, creates: 124, truncated: true}, // through the batch of 64 ending at ordinal 126: 60 built at ordinal 62
		{limit: 0, creates: len(fullOrds), truncated: true},
		{limit: planner.MaxCreates, creates: len(fullOrds), truncated: true},
		{limit: 5 * planner.MaxCreates, creates: len(fullOrds), truncated: true},
	} {
		in := c.input(1500)
		in.CreateLimit = tc.limit
		plan := planner.Compute(in)
		ords := createdOrdinals(plan)
		if len(ords) != tc.creates || plan.Truncated != tc.truncated {
			t.Errorf("limit %d: %d creates, truncated %v; want %d, truncated %v", tc.limit, len(ords), plan.Truncated, tc.creates, tc.truncated)
			continue
		}
		for i, ord := range ords {
			if ord != fullOrds[i] {
				t.Errorf("limit %d: create %d is ordinal %d, the full plan's is %d", tc.limit, i, ord, fullOrds[i])
				break
			}
		}
	}

	small := c.input(40)
	small.CreateLimit = 71
	plan := planner.Compute(small)
	if n := len(createdOrdinals(plan)); n != 37 || plan.Truncated {
		t.Errorf("a scale-up to 40 within a limit of 71: %d creates, truncated %v; want 37, not truncated", n, plan.Truncated)
	}
}
