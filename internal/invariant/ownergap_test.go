package invariant

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/watch"
)

// A claim given its pod as owner while the last version of the set the
// watch saw still had its ordinal: when the next version comes from a
// relist (the watch broke, as across an API server restart) and has the
// ordinal out of range, the scale-down may have been committed before the
// claim's write, unseen, and nothing is broken; when it comes from the
// watch, or keeps the ordinal, the violation stands.
func TestAClaimOwnerBeforeARelistedScaleDownIsNotJudgedBroken(t *testing.T) {
	for _, tc := range []struct {
		name     string
		relisted bool
		replicas int32
		want     []Rule
	}{
		{"a relisted scale-down excuses it", true, 1, nil},
		{"a watched scale-down does not", false, 1, []Rule{RuleClaimOwner}},
		{"a relisted version with the ordinal in range does not", true, 3, []Rule{RuleClaimOwner}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := threeReady(whenScaledDelete).add(3, added, mkClaim(1))
			h.add(20, modified, mkClaim(1, ownedByPod(1)))
			h.add(21, modified, mkSet(tc.replicas, whenScaledDelete))
			h.events[len(h.events)-1].Relisted = tc.relisted
			if tc.relisted {
				h.events[len(h.events)-1].Type = watch.Modified
			}
			if got := h.rules(); !slices.Equal(got, tc.want) {
				t.Errorf("rules broken %v, want %v", got, tc.want)
			}
		})
	}
}
