package setops

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// A pause whose guarded patch meets a set changed since it was read (the
// controller wrote its status) reads the set again and pauses that,
// instead of failing with Conflict.
func TestAPauseThatMeetsAConflictReadsTheSetAgain(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(3))
	set.ResourceVersion = "5"
	client := fake.NewClientset(set.DeepCopy())
	current := set.DeepCopy()
	current.ResourceVersion = "6"
	var patches []string
	client.PrependReactor("get", "statefulsets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, current.DeepCopy(), nil
	})
	client.PrependReactor("patch", "statefulsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		body := string(a.(k8stesting.PatchAction).GetPatch())
		patches = append(patches, body)
		if len(patches) == 1 {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, "web", nil)
		}
		current.Spec.UpdateStrategy.RollingUpdate = nil
		return true, current.DeepCopy(), nil
	})
	target := &Target{Client: client, Set: set}
	calls := 0
	msg, err := target.Retrying(context.Background(), func() (string, error) {
		calls++
		return "paused", target.patchPause(context.Background(), ptr.To[int32](3), ptr.To("0"))
	})
	if err != nil || msg != "paused" {
		t.Fatalf("Retrying = %q, %v; want the pause to succeed on the set read again", msg, err)
	}
	if calls != 2 || len(patches) != 2 {
		t.Fatalf("%d runs and %d patches, want 2 of each", calls, len(patches))
	}
	if want := `"resourceVersion":"6"`; !strings.Contains(patches[1], want) {
		t.Errorf("second patch %s, want it guarded by the version read again (%s)", patches[1], want)
	}
}

// A conflict that never ends is reported as one after a few tries.
func TestAConflictThatPersistsIsReported(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(3))
	client := fake.NewClientset(set.DeepCopy())
	target := &Target{Client: client, Set: set}
	calls := 0
	_, err := target.Retrying(context.Background(), func() (string, error) {
		calls++
		return "", apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, "web", nil)
	})
	if !apierrors.IsConflict(err) || calls < 2 || calls > 10 {
		t.Errorf("after %d runs: %v; want a Conflict after a few tries", calls, err)
	}
}
