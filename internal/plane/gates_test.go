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
		{"none: the defaults", nil, map[string]bool{"MaxUnavailableStatefulSet": true}},
		{"the maxUnavailable gate turned off", map[string]bool{"MaxUnavailableStatefulSet": false}, map[string]bool{"MaxUnavailableStatefulSet": false}},
		{"another gate added", map[string]bool{"SomeGate": true}, map[string]bool{"MaxUnavailableStatefulSet": true, "SomeGate": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, featureGates(tc.explicit)); diff != "" {
				t.Errorf("gates (-want +got):\n%s", diff)
			}
		})
	}
	if !DefaultFeatureGates()["MaxUnavailableStatefulSet"] {
		t.Error("the plane's defaults no longer turn MaxUnavailableStatefulSet on")
	}
}
