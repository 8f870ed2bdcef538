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
		if want := c == ContenderOrdinalExtended || c == ContenderOrdinalInPlace || c == ContenderOrdinalOverrides; extended != want {
			t.Errorf("%s writes the extended kind: %v, want %v", c, extended, want)
		}
		if inPlace := ew.policy == v1alpha1.PodUpdateInPlaceIfPossible; inPlace != (c == ContenderOrdinalInPlace) {
			t.Errorf("%s updates pods in place: %v", c, inPlace)
		}
		if overridden := len(ew.overrides) == 3; overridden != (c == ContenderOrdinalOverrides) {
			t.Errorf("%s has %d override groups", c, len(ew.overrides))
		}
	}
}
