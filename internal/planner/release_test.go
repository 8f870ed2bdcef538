package planner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// TestReleaseDecidesOnlyWhatTheSetDoesNotShow is the table of behaviour by
// release. A set of type RollingUpdate written without a rollingUpdate
// block shows neither MaxUnavailableStatefulSet setting: the gate's default
// in the cluster's release decides between the budgeted update (gate on:
// unready web-0 uses up maxUnavailable 1; in a set without a block it
// waits its turn, in one with a block it goes first, for free) and the
// gate-off update (the highest old pod goes, whatever is unready below
// it). A set with a block shows its API server's gate, whatever the
// release.
func TestReleaseDecidesOnlyWhatTheSetDoesNotShow(t *testing.T) {
	const budgeted, gateOff = "budgeted", "gate off"
	noBlock := rollout(testgen.Replicas(3), testgen.Parallel(), testgen.NoRollingUpdate())
	withMax := rollout(testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(1))
	withoutMax := rollout(testgen.Replicas(3), testgen.Parallel(), testgen.GateOff())
	for _, tc := range []struct {
		name    string
		f       fixture
		release planner.Release
		want    string
	}{
		{"no block, 1.34 (alpha, off)", noBlock, planner.Release{Minor: 34, Patch: 4}, gateOff},
		{"no block, 1.35.0 (beta, on)", noBlock, planner.Release{Minor: 35}, budgeted},
		{"no block, 1.35.3", noBlock, planner.Release{Minor: 35, Patch: 3}, budgeted},
		{"no block, 1.35.4 (turned off)", noBlock, planner.Release{Minor: 35, Patch: 4}, gateOff},
		{"no block, 1.36.3", noBlock, planner.Release{Minor: 36, Patch: 3}, gateOff},
		{"no block, 1.37.2 (on again)", noBlock, planner.Release{Minor: 37, Patch: 2}, budgeted},
		{"no block, a newer release than Ordinal knows", noBlock, planner.Release{Minor: 38}, budgeted},
		{"no block, release unknown: the newest", noBlock, planner.Release{}, budgeted},
		{"maxUnavailable kept by the API server, on 1.36", withMax, planner.Release{Minor: 36, Patch: 3}, budgeted},
		{"maxUnavailable dropped by the API server, on 1.37", withoutMax, planner.Release{Minor: 37, Patch: 2}, gateOff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.f.input(with([]*corev1.Pod{tc.f.pod(0, testgen.NotReady(now))}, tc.f.pods(1, 2)...))
			in.Release = tc.release
			got, steps := budgeted, tc.f.summary(compute(in))
			if cmp.Equal([]string{"rolling update: DeletePod web-2"}, steps) {
				got = gateOff
			}
			if got != tc.want {
				t.Errorf("update = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestParseRelease(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want planner.Release
		err  bool
	}{
		{in: "v1.37.2", want: planner.Release{Minor: 37, Patch: 2}},
		{in: "v1.36.3-gke.1200", want: planner.Release{Minor: 36, Patch: 3}},
		{in: "v1.35.4+k3s1", want: planner.Release{Minor: 35, Patch: 4}},
		{in: "1.34.0", want: planner.Release{Minor: 34}},
		{in: "v2.0.0", err: true},
		{in: "v1.x.0", err: true},
		{in: "", err: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := planner.ParseRelease(tc.in)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("ParseRelease(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
			}
		})
	}
}
