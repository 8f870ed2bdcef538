package defaults

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/features"
)

// setsPerGate is how many random StatefulSets are checked for each setting
// of the MaxUnavailableStatefulSet gate: 4000, or 400 with -short, which
// are too few to exercise every rule and so skip that check.
func setsPerGate() int {
	if testing.Short() {
		return 400
	}
	return 4000
}

// TestStatefulSetMatchesTheAPIServer fills random StatefulSets and checks
// that StatefulSet gives exactly the object the API server's own scheme
// defaulting gives, with the gate off and on, that applying it twice changes
// nothing more, and that the random sets exercised every rule.
func TestStatefulSetMatchesTheAPIServer(t *testing.T) {
	for _, gate := range []bool{false, true} {
		t.Run(fmt.Sprintf("MaxUnavailableStatefulSet=%v", gate), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.MaxUnavailableStatefulSet, gate)
			sets := newRandomSets(map[bool]int64{false: 1, true: 2}[gate])
			changed := map[string]int{}
			for i := range setsPerGate() {
				in := sets.next()
				got := checkAgainstScheme(t, i, in, Options{MaxUnavailable: gate})
				if !testing.Short() {
					for path := range changedPaths(&in.Spec, &got.Spec) {
						changed[path]++
					}
				}
			}
			if !testing.Short() {
				checkEveryRuleFired(t, changed, gate)
			}
		})
	}
}

// checkAgainstScheme defaults copies of in both ways, fails on any
// difference or on a second application changing anything, and returns our
// result.
func checkAgainstScheme(t *testing.T, i int, in *appsv1.StatefulSet, opts Options) *appsv1.StatefulSet {
	t.Helper()
	want := in.DeepCopy()
	legacyscheme.Scheme.Default(want)
	got := in.DeepCopy()
	StatefulSet(got, opts)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("set %d: StatefulSet differs from the scheme's defaults (-scheme +ours):\n%s", i, jsonDiff(t, want, got))
	}
	again := got.DeepCopy()
	StatefulSet(again, opts)
	if !reflect.DeepEqual(again, got) {
		t.Fatalf("set %d: a second StatefulSet changed the set (-once +twice):\n%s", i, jsonDiff(t, got, again))
	}
	return got
}

// jsonDiff shows the difference of two objects as their JSON trees; if the
// JSON is the same the difference is in a representation the encoding hides.
func jsonDiff(t *testing.T, a, b any) string {
	diff := cmp.Diff(jsonTree(t, a), jsonTree(t, b))
	if diff == "" {
		return "same JSON, different Go values (a quantity's internal form?)"
	}
	return diff
}

// jsonTree returns v encoded as JSON and decoded into maps and slices.
func jsonTree(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatalf("decoding %T: %v", v, err)
	}
	return tree
}
