package defaults_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/features"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/internal/defaults"
	"github.com/ordinal-sh/ordinal/internal/golden"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// manifests are StatefulSet manifests as users apply them: the README's
// example and the ones under testdata/.
var manifests = []string{"../../examples/web.yaml", "testdata/db.yaml", "testdata/cache.yaml"}

// TestDefaultsGiveTheRevisionTheAPIServerStores decodes each manifest,
// defaults it, and checks that the result is what the scheme's defaulting
// gives and that its revision data (and so its hash) is that of the set
// the API server stores: decoded through its codec, which defaults and
// converts to the internal version, and encoded back as apps/v1. The
// revision data is also kept as a golden file, so a change to it shows.
func TestDefaultsGiveTheRevisionTheAPIServerStores(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.MaxUnavailableStatefulSet, false)
	for _, path := range manifests {
		t.Run(filepath.Base(path), func(t *testing.T) {
			manifest := defaults.StatefulSetDocument(t, path)
			in := &appsv1.StatefulSet{}
			if err := yaml.UnmarshalStrict(manifest, in); err != nil {
				t.Fatalf("decoding %s: %v", path, err)
			}
			ours := revisionData(t, schemeChecked(t, in))
			stored := revisionData(t, storedByAPIServer(t, manifest))
			if !bytes.Equal(ours, stored) {
				t.Errorf("revision data differs from the stored set's (-stored +ours):\n%s", cmp.Diff(string(stored), string(ours)))
			}
			if revision.Hash(ours, nil) != revision.Hash(stored, nil) {
				t.Errorf("revision hash %s, the stored set's %s", revision.Hash(ours, nil), revision.Hash(stored, nil))
			}
			golden.Check(t, strings.TrimSuffix(filepath.Base(path), ".yaml")+".revision.json", string(ours)+"\n")
		})
	}
}

// storedByAPIServer decodes manifest as the API server does a create
// (defaulting, then converting to the internal version) and encodes it as
// apps/v1 as the API server writes it to storage.
func storedByAPIServer(t *testing.T, manifest []byte) *appsv1.StatefulSet {
	t.Helper()
	data, err := yaml.YAMLToJSON(manifest)
	if err != nil {
		t.Fatal(err)
	}
	internal, _, err := legacyscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("decoding through the API server's codec: %v", err)
	}
	encoded, err := runtime.Encode(legacyscheme.Codecs.LegacyCodec(appsv1.SchemeGroupVersion), internal)
	if err != nil {
		t.Fatalf("encoding as apps/v1: %v", err)
	}
	stored := &appsv1.StatefulSet{}
	if err := json.Unmarshal(encoded, stored); err != nil {
		t.Fatal(err)
	}
	return stored
}

// revisionData returns the data of the ControllerRevision for set.
func revisionData(t *testing.T, set *appsv1.StatefulSet) []byte {
	t.Helper()
	data, err := revision.Patch(set)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// schemeChecked returns in defaulted by the package, after checking that
// the scheme's defaulting gives the same object.
func schemeChecked(t *testing.T, in *appsv1.StatefulSet) *appsv1.StatefulSet {
	t.Helper()
	got := in.DeepCopy()
	defaults.StatefulSet(got, defaults.Options{})
	want := in.DeepCopy()
	legacyscheme.Scheme.Default(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("StatefulSet differs from the scheme's defaults (-scheme +ours):\n%s", diff)
	}
	return got
}
