package invariant

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// twoBreaches is threeReady with a pod beyond the range created twice, at
// rv 8 and rv 10.
func twoBreaches() *history {
	h := threeReady().add(5, added, mkPod(3, "a"))
	h.add(6, deleted, mkPod(3, "a"))
	return h.add(7, added, mkPod(3, "b"))
}

func TestViolationsNameTheControllerInCharge(t *testing.T) {
	cases := []struct {
		name      string
		handOvers []handOver
		want      []Controller
	}{{
		name: "without hand-overs no controller is named",
		want: []Controller{"", ""},
	}, {
		name:      "a change committed after a hand-over's resourceVersion is the new controller's",
		handOvers: []handOver{{rv: 9, to: Builtin}},
		want:      []Controller{Ordinal, Builtin},
	}, {
		name:      "a change committed at the hand-over's resourceVersion is still the old controller's",
		handOvers: []handOver{{rv: 10, to: Builtin}},
		want:      []Controller{Ordinal, Ordinal},
	}, {
		name:      "hand-overs recorded out of order apply in commit order",
		handOvers: []handOver{{rv: 9, to: Ordinal}, {rv: 2, to: Builtin}},
		want:      []Controller{Builtin, Ordinal},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{})
			for _, ev := range twoBreaches().events {
				c.Observe(ev)
			}
			for _, h := range tc.handOvers {
				c.HandOver(h.rv, t0, h.to)
			}
			var got []Controller
			for _, v := range c.Violations() {
				if v.Rule != RuleOrdinalRange {
					t.Fatalf("unexpected violation %s", v)
				}
				got = append(got, v.InCharge)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("controllers in charge (-want +got):\n%s", diff)
			}
		})
	}
}

func TestViolationStringNamesTheControllerInCharge(t *testing.T) {
	v := Violation{Rule: RuleOrdinalRange, Object: "ns/web-3", RV: 8, Time: t0, Message: "created outside", InCharge: Builtin}
	if got, want := v.String(), "[ordinal-range] ns/web-3 (rv 8 at 00:00:00.000, builtin in charge): created outside"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestWriteHistoryShowsHandOversInCommitOrder(t *testing.T) {
	c := New(Options{})
	for _, ev := range threeReady().events {
		c.Observe(ev)
	}
	c.HandOver(4, t0.Add(1e9), Builtin)
	var b strings.Builder
	if err := c.WriteHistory(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 8 {
		t.Fatalf("got %d lines, want 7 events and a hand-over:\n%s", len(lines), b.String())
	}
	if want := "4 00:00:01.000 HAND-OVER: builtin is in charge from here on"; lines[4] != want {
		t.Errorf("line 5 is %q, want %q (after rv 4, before rv 5)", lines[4], want)
	}
}
