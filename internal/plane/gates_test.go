package plane

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExplicitFeatureGatesOverrideThePlanesDefaults(t *testing.T) {
	for _, tc := range []struct {
		name     string
		explicit map[string]bool
		want     map[string]bool
	}{
		{"none: the release's defaults", nil, map[string]bool{}},
		{"the maxUnavailable gate turned off", map[string]bool{"MaxUnavailableStatefulSet": false}, map[string]bool{"MaxUnavailableStatefulSet": false}},
		{"the Recreate alpha turned on", map[string]bool{"StatefulSetRecreateStrategy": true}, map[string]bool{"StatefulSetRecreateStrategy": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, featureGates(tc.explicit)); diff != "" {
				t.Errorf("gates (-want +got):\n%s", diff)
			}
		})
	}
}
