package rolloutview

import (
	"testing"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestTheDeadlineStandsStillAtThePartition(t *testing.T) {
	r := PlanReport{Extended: &ExtendedPlan{Rolling: true, AtPartition: true, ProgressDeadlineSeconds: 600}}
	got := deadlineWords(r, testgen.Epoch)
	if want := "600s, not running: every pod at or above the partition is updated; lower the partition to go on."; got != want {
		t.Errorf("deadline words %q, want %q", got, want)
	}
}
