package bench

import (
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// The ordinal-osts contender's scenarios write the extended kind; every
// other contender's write apps/v1.
func TestEachContenderWritesItsKind(t *testing.T) {
	apps, ext := fake.NewClientset(), &ostsclient.Client{}
	for _, c := range ContenderNames {
		w := writerFor(c, apps, ext)
		ew, extended := w.(extendedWriter)
		if want := c == ContenderOrdinalExtended || c == ContenderOrdinalExtendedBefore || c == ContenderOrdinalInPlace || c == ContenderOrdinalOverrides ||
			c == ContenderOrdinalConfig || c == ContenderOrdinalReload; extended != want {
			t.Errorf("%s writes the extended kind: %v, want %v", c, extended, want)
		}
		if inPlace := ew.policy == v1alpha1.PodUpdateInPlaceIfPossible; inPlace != (c == ContenderOrdinalInPlace) {
			t.Errorf("%s updates pods in place: %v", c, inPlace)
		}
		if overridden := len(ew.overrides) == 3; overridden != (c == ContenderOrdinalOverrides) {
			t.Errorf("%s has %d override groups", c, len(ew.overrides))
		}
		want := map[string]v1alpha1.ConfigApply{ContenderOrdinalConfig: v1alpha1.ConfigApplyRestart, ContenderOrdinalReload: v1alpha1.ConfigApplyReload}[c]
		if ew.config != want {
			t.Errorf("%s's sets read a ConfigMap under apply %q, want %q", c, ew.config, want)
		}
	}
}
