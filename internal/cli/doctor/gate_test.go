package doctor

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// The gate check reads the answer of the dry-run create: the field kept
// means the gate is on.
func TestTheGateIsOnWhenTheDryRunKeepsMaxUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name         string
		drop         bool
		extendedOnly bool
		want         Status
	}{
		{"kept", false, false, OK},
		{"dropped", true, false, Warn},
		{"dropped where Ordinal leaves apps/v1 sets to the built-in controller", true, true, Info},
		{"kept where Ordinal leaves apps/v1 sets to the built-in controller", false, true, OK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, client := fakeDoctor(t, nil)
			client.PrependReactor("create", "statefulsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
				create := a.(k8stesting.CreateActionImpl)
				if opts := create.GetCreateOptions(); len(opts.DryRun) != 1 || opts.DryRun[0] != metav1.DryRunAll {
					t.Errorf("the probe was created without a dry run: %+v", opts)
				}
				set := create.GetObject().(*appsv1.StatefulSet).DeepCopy()
				if tc.drop {
					set.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = nil
				}
				return true, set, nil
			})
			if got := d.checkGate(context.Background(), tc.extendedOnly); got.Status != tc.want {
				t.Errorf("got %s %q, want %s", got.Status, got.Message, tc.want)
			}
		})
	}
}
