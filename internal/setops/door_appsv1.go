package setops

import (
	"context"
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// appsV1Door is apps/v1's door: the set is read and patched through the
// typed client, and the planner sees it alone. Its pause and resume are
// in pause.go, its undo in undo.go.
type appsV1Door struct{}

func (appsV1Door) kind() setkind.Kind { return setkind.AppsV1 }

func (appsV1Door) load(ctx context.Context, client kubernetes.Interface, _ *ostsclient.Client, namespace, name string) (*Target, error) {
	set, err := client.AppsV1().StatefulSets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return &Target{Client: client, Set: set}, nil
}

func (appsV1Door) refresh(ctx context.Context, t *Target) error {
	set, err := t.Client.AppsV1().StatefulSets(t.Set.Namespace).Get(ctx, t.Set.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	t.Set = set
	return nil
}

func (appsV1Door) patch(ctx context.Context, t *Target, pt types.PatchType, data []byte) error {
	_, err := t.Client.AppsV1().StatefulSets(t.Set.Namespace).Patch(ctx, t.Set.Name, pt, data, metav1.PatchOptions{})
	return err
}

// mapPatchType is a strategic merge patch, as kubectl sends it.
func (appsV1Door) mapPatchType() types.PatchType { return types.StrategicMergePatchType }

// arg is the bare name, which finds an apps/v1 set first.
func (appsV1Door) arg(name string) string { return name }

// choosable refuses: an apps/v1 set can only shrink from its highest
// ordinal and ignores v1alpha1.DeleteRequestedLabel.
func (appsV1Door) choosable(t *Target) error {
	return fmt.Errorf("%w: %s is an apps/v1 StatefulSet, which removes only its highest ordinals and replaces pods only as its rollout does; "+
		"`ordinal migrate sts/%s` turns it into %s (%s) with no pod restarted", ErrNeedsExtended, t.Ref(), t.Set.Name, ExtendedKind.Resource(), ExtendedKind.APIVersion())
}

func (appsV1Door) storageClasses(context.Context, *Target) []*storagev1.StorageClass { return nil }

func (appsV1Door) nodeFacts(context.Context, *Target, Observed) *NodeFacts { return nil }

func (appsV1Door) revisionOptions(*v1alpha1.StatefulSet) revision.Options { return revision.Options{} }

func (appsV1Door) plannerInputs(Observed) (*planner.Extended, planner.Observed) {
	return nil, planner.Observed{}
}

func (appsV1Door) explain(*rolloutview.PlanReport, planner.Input, planner.Plan) {}

func (appsV1Door) statusClaims(*Target) bool { return false }

func (appsV1Door) snapshot(o Observed, update string) rolloutview.Snapshot {
	return rolloutview.NewSnapshot(o.Set, o.Pods, update)
}
