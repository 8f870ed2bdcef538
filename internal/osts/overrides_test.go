package osts

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// An undo or rollback puts the revision's overrides back: its list, or
// none when it holds none and the set has some.
func TestRestoreOverrides(t *testing.T) {
	big := []v1alpha1.OrdinalOverride{{Name: "big", Ordinals: []intstr.IntOrString{intstr.FromInt32(0)},
		Template: &v1alpha1.OverrideTemplate{Metadata: &v1alpha1.OverrideMetadata{Labels: map[string]string{"tier": "big"}}}}}
	apps := testgen.StatefulSet("web")
	withRev, err := revision.NewWith(apps, 1, nil, revision.Options{Overrides: big})
	if err != nil {
		t.Fatal(err)
	}
	plainRev := testgen.RevisionOf(apps, 2)
	set := func(list []v1alpha1.OrdinalOverride) *v1alpha1.StatefulSet {
		return &v1alpha1.StatefulSet{Spec: v1alpha1.StatefulSetSpec{Overrides: list}}
	}
	for _, tc := range []struct {
		name string
		set  *v1alpha1.StatefulSet
		rev  bool // the revision holds overrides
		want string
	}{
		{"a revision with overrides sets them", set(nil), true, `[{"op":"add","path":"/spec/overrides","value":[{"name":"big","ordinals":[0],"template":{"metadata":{"labels":{"tier":"big"}}}}]}]`},
		{"a revision without removes the set's", set(big), false, `[{"op":"remove","path":"/spec/overrides"}]`},
		{"neither has any: no operation", set(nil), false, `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rev := plainRev
			if tc.rev {
				rev = withRev
			}
			ops, err := RestoreOverrides(tc.set, rev)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(ops)
			if string(got) != tc.want {
				t.Errorf("ops %s, want %s", got, tc.want)
			}
		})
	}
}
