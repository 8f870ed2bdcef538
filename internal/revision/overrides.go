package revision

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// overridesData is what a revision keeps of spec.overrides: the whole
// list, sorted by name so that reordering it makes no new revision, as a
// generic value so that its keys are encoded sorted, like the template's.
func overridesData(list []v1alpha1.OrdinalOverride) (any, error) {
	sorted := slices.Clone(list)
	slices.SortStableFunc(sorted, func(a, b v1alpha1.OrdinalOverride) int { return cmp.Compare(a.Name, b.Name) })
	encoded, err := json.Marshal(sorted)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(encoded, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Overrides returns the overrides rev holds: nil for a revision made
// without any (every revision of a set that never had overrides, and
// every apps/v1 revision).
func Overrides(rev *appsv1.ControllerRevision) ([]v1alpha1.OrdinalOverride, error) {
	if rev == nil || !bytes.Contains(rev.Data.Raw, []byte(`"overrides"`)) {
		return nil, nil
	}
	var data struct {
		Spec struct {
			Overrides []v1alpha1.OrdinalOverride `json:"overrides"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(rev.Data.Raw, &data); err != nil {
		return nil, fmt.Errorf("reading the overrides of revision %s: %w", rev.Name, err)
	}
	return data.Spec.Overrides, nil
}
