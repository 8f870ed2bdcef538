package forecast

import (
	"testing"
	"time"
)

func TestARolloutEndsAtTheNewRevisionOrBackAtTheOldOneOrWhenNothingMoves(t *testing.T) {
	l := Limits{Stuck: 40 * s, Timeout: 10 * time.Minute, Rest: 3 * s}
	for _, tt := range []struct {
		name string
		m    Moment
		want Outcome
	}{
		{"not yet observed", Moment{Since: s, Moved: s, From: "a", Settled: "a"}, ""},
		{"a change with no new revision", Moment{Since: 2 * s, Moved: 0, Observed: true, From: "a", To: "a", Settled: "a"}, NoChange},
		{"rolling", Moment{Since: 9 * s, Moved: 8 * s, Observed: true, From: "a", To: "b"}, ""},
		{"every pod at the new revision", Moment{Since: 15 * s, Moved: 15 * s, Observed: true, From: "a", To: "b", Settled: "b"}, Completed},
		// The extended kind rolled back: every pod at the old revision again.
		{"rolling back", Moment{Since: 35 * s, Moved: 34 * s, Observed: true, From: "a", To: "b", RolledBack: true}, ""},
		{"rolled back", Moment{Since: 38 * s, Moved: 38 * s, Observed: true, From: "a", To: "b", RolledBack: true, Settled: "a"}, RolledBack},
		{"back at the old revision by hand is no rollback", Moment{Since: 38 * s, Moved: 38 * s, Observed: true, From: "a", To: "b", Settled: "a"}, ""},
		{"paused, still moving", Moment{Since: 20 * s, Moved: 19 * s, Observed: true, From: "a", To: "b", Paused: true}, ""},
		{"paused", Moment{Since: 23 * s, Moved: 19 * s, Observed: true, From: "a", To: "b", Paused: true}, Paused},
		{"waiting", Moment{Since: 41 * s, Moved: 2 * s, Observed: true, From: "a", To: "b"}, ""},
		{"stuck", Moment{Since: 43 * s, Moved: 2 * s, Observed: true, From: "a", To: "b"}, Stuck},
		{"out of time", Moment{Since: 10 * time.Minute, Moved: 10*time.Minute - s, Observed: true, From: "a", To: "b"}, TimedOut},
	} {
		got, done := Judge(tt.m, l)
		if got != tt.want || done != (tt.want != "") {
			t.Errorf("%s: Judge = %q, %v; want %q", tt.name, got, done, tt.want)
		}
	}
}
