package forecast

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	readyWhy = "OrderedReady: pods after web-2 are created, updated or deleted only once it is Running and Ready"
	termWhy  = "OrderedReady: web-2 must finish terminating before it is recreated and before any later pod changes"
	pdbWhy   = "respectDisruptionBudgets: the eviction of web-1 was refused: Cannot evict pod; the controller asks again in 4.2s"
)

func TestWaitsJoinSamplesPerPodAndCategoryAndDropTheMomentary(t *testing.T) {
	ms := time.Millisecond
	samples := []PlanSample{
		{At: 0, Acting: true},
		{At: 500 * ms, Waits: []WaitSample{{"web-2", termWhy}}},
		{At: 1000 * ms, Waits: []WaitSample{{"web-2", termWhy}}},
		{At: 1500 * ms, Acting: true, Waits: []WaitSample{{"web-2", termWhy}}}, // acting: not a wait
		{At: 2000 * ms, Waits: []WaitSample{{"web-2", readyWhy}}},
		{At: 2500 * ms, Waits: []WaitSample{{"web-2", readyWhy}, {"web-1", pdbWhy}}},
		// The planner's words change (the retry's countdown); the wait goes on.
		{At: 3000 * ms, Waits: []WaitSample{{"web-1", pdbWhy[:len(pdbWhy)-4] + "3.7s"}}},
		{At: 3200 * ms, Waits: []WaitSample{{"web-0", readyWhy}}},
	}
	got := Waits(samples, 5*time.Second)
	want := []Wait{
		{From: Seconds(500 * ms), To: Seconds(1500 * ms), Pod: "web-2", Category: "shutdown", Why: termWhy},
		{From: Seconds(2000 * ms), To: Seconds(3000 * ms), Pod: "web-2", Category: "readiness", Why: readyWhy},
		{From: Seconds(2500 * ms), To: Seconds(3200 * ms), Pod: "web-1", Category: "disruption budget", Why: pdbWhy},
		{From: Seconds(3200 * ms), To: Seconds(5000 * ms), Pod: "web-0", Category: "readiness", Why: readyWhy},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestWaitsAreCategorisedByThePlannersWords(t *testing.T) {
	for why, want := range map[string]string{
		readyWhy: "readiness", termWhy: "shutdown", pdbWhy: "disruption budget",
		"OrderedReady: pods after web-1 are created, updated or deleted only once it has been Ready for 10s":                       "available",
		"RollingUpdate maxUnavailable 1: 1 unavailable now, so web-1 (old revision) is replaced only when a pod becomes available": "maxUnavailable",
		"quorum: roles voter form a quorum of 3 members, a majority is 2 and 2 are Available; web-0 is disrupted only when …":      "quorum",
		"preUpdate hook of web-2 is a handshake: it waits until …; it times out in 4m57s (failurePolicy Halt: …)":                  "hook",
		"RollingUpdate topology topology.kubernetes.io/zone: domains go one after another (a, b); web-1 in zone b waits …":         "zone",
		"something the planner says one day": "other",
	} {
		if got := Category(why); got != want {
			t.Errorf("Category(%q) = %q, want %q", why, got, want)
		}
	}
}

func TestABudgetNeedsItsMinimumOrAllButItsMaximumUnavailable(t *testing.T) {
	for _, tt := range []struct {
		minAvail, maxUnavail *intstr.IntOrString
		want                 int
	}{
		{ptr(intstr.FromInt32(2)), nil, 2},
		{ptr(intstr.FromString("50%")), nil, 3}, // rounded up, of 5
		{nil, ptr(intstr.FromInt32(1)), 4},
		{nil, ptr(intstr.FromString("30%")), 3}, // 2 unavailable (1.5 rounded up)
		{nil, nil, 0},
	} {
		got, err := BudgetNeeds(tt.minAvail, tt.maxUnavail, 5)
		if err != nil || got != tt.want {
			t.Errorf("BudgetNeeds(%v, %v, 5) = %d, %v; want %d", tt.minAvail, tt.maxUnavail, got, err, tt.want)
		}
	}
	if _, err := BudgetNeeds(ptr(intstr.FromString("half")), nil, 5); err == nil {
		t.Error("a minAvailable of \"half\" was accepted")
	}
}

func ptr[T any](v T) *T { return &v }

func TestTheTextCountsWaitsForTwoPodsAtOnceOnce(t *testing.T) {
	ws := []Wait{
		{From: Seconds(0), To: Seconds(10 * time.Second), Pod: "db-3", Category: "maxUnavailable"},
		{From: Seconds(2 * time.Second), To: Seconds(10 * time.Second), Pod: "db-4", Category: "maxUnavailable"},
		{From: Seconds(12 * time.Second), To: Seconds(13 * time.Second), Pod: "db-2", Category: "maxUnavailable"},
		{From: Seconds(0), To: Seconds(4 * time.Second), Pod: "db-3", Category: "shutdown"},
	}
	got := waitSummary(ws)
	if len(got) != 2 || got[0].count != 3 || got[0].total.D() != 11*time.Second || got[1].total.D() != 4*time.Second {
		t.Errorf("summary %+v, want maxUnavailable 3× over 11s and shutdown over 4s", got)
	}
}
