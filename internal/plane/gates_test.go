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

// The EvictionRequestAPI gate alone does not serve lifecycle.k8s.io:
// 1.37 disables the alpha group version by default, so the plane enables
// it with the gate, and only then.
func TestTheEvictionRequestGateAlsoEnablesItsGroupVersion(t *testing.T) {
	const want = "--runtime-config=lifecycle.k8s.io/v1alpha1=true"
	has := func(flags []string) bool {
		for _, f := range flags {
			if f == want {
				return true
			}
		}
		return false
	}
	if !has(apiserverFlags(apiserverFiles{evictionRequests: true})) {
		t.Errorf("the API server's flags with the gate on lack %s", want)
	}
	if has(apiserverFlags(apiserverFiles{})) {
		t.Errorf("the API server's flags without the gate have %s", want)
	}
}
