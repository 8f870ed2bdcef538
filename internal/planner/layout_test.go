package planner_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// A Layout answers what the list SetOrdinals makes would answer, for
// generated starts, counts and reserved ranges, near zero and near the
// largest ordinal.
func TestLayoutAgreesWithTheListOfOrdinals(t *testing.T) {
	for seed := range propertyRuns() {
		r := rand.New(rand.NewPCG(seed, 7))
		base := int32(0)
		if r.IntN(4) == 0 {
			base = math.MaxInt32 - 40
		}
		start, count := base+int32(r.IntN(10)), int32(r.IntN(20))
		var reserved []planner.OrdinalRange
		for range r.IntN(5) {
			low := base + int32(r.IntN(40))
			reserved = append(reserved, planner.OrdinalRange{Low: low, High: low + int32(r.IntN(min(6, int(math.MaxInt32-low)+1)))})
		}
		want := planner.SetOrdinals(start, count, reserved)
		l := planner.NewLayout(start, count, reserved)
		var got []int32
		for _, run := range l.Runs() {
			for ord := int64(run.Low); ord <= int64(run.High); ord++ {
				got = append(got, int32(ord))
			}
		}
		if diff := cmp.Diff(want, append([]int32{}, got...)); diff != "" || l.Len() != int32(len(want)) {
			t.Fatalf("seed %d: start %d count %d reserved %v: runs %v, Len %d (-want +got):\n%s", seed, start, count, reserved, l.Runs(), l.Len(), diff)
		}
		for i, ord := range want {
			if at := l.At(int32(i)); at != ord {
				t.Fatalf("seed %d: At(%d) = %d, want %d", seed, i, at, ord)
			}
		}
		for ord := base; ord < base+50 && ord >= base; ord++ {
			wantIndex, wantOK := int32(-1), false
			below := int32(0)
			for i, o := range want {
				if o == ord {
					wantIndex, wantOK = int32(i), true
				}
				if o < ord {
					below++
				}
			}
			if i, ok := l.Index(ord); ok != wantOK || (ok && i != wantIndex) {
				t.Fatalf("seed %d: start %d count %d reserved %v: Index(%d) = %d, %v; want %d, %v", seed, start, count, reserved, ord, i, ok, wantIndex, wantOK)
			}
			if got := l.Below(ord); got != below {
				t.Fatalf("seed %d: start %d count %d reserved %v: Below(%d) = %d, want %d", seed, start, count, reserved, ord, got, below)
			}
		}
	}
}

// A layout of the most replicas costs its ranges, not its ordinals.
func TestALayoutOfAMillionOrdinalsIsItsRanges(t *testing.T) {
	l := planner.NewLayout(0, 1_000_000, []planner.OrdinalRange{{Low: 10, High: 19}, {Low: 500_000, High: 500_000}})
	want := []planner.OrdinalRange{{Low: 0, High: 9}, {Low: 20, High: 500_000 - 1}, {Low: 500_001, High: 1_000_010}}
	if diff := cmp.Diff(want, l.Runs()); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if last, ok := l.Last(); !ok || last != 1_000_010 {
		t.Errorf("last ordinal %d, want 1000010", last)
	}
}
