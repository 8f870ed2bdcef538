package setops

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// Target is one set, as last read, and the clients to reach it.
type Target struct {
	Client kubernetes.Interface
	// Set is the apps/v1 set, or, for an extended set, its apps/v1 view
	// (osts.View): every read, the planner and the views work on it.
	Set *appsv1.StatefulSet
	// Extended is the extended set as read; nil for an apps/v1 set.
	Extended *v1alpha1.StatefulSet
	// sets reaches the extended kind in the set's namespace; nil for an
	// apps/v1 set.
	sets ostsclient.Interface
}

// Load reads the apps/v1 set. A missing set is the API's NotFound error,
// unwrapped, so its message is the API's own.
func Load(ctx context.Context, client kubernetes.Interface, namespace, name string) (*Target, error) {
	return appsV1Door{}.load(ctx, client, nil, namespace, name)
}

// LoadExtended reads the extended set. A missing set is the API's
// NotFound error, as Load's; so is a cluster without the kind.
func LoadExtended(ctx context.Context, client kubernetes.Interface, ext *ostsclient.Client, namespace, name string) (*Target, error) {
	return extendedDoor{}.load(ctx, client, ext, namespace, name)
}

// Find reads the set ref names. A bare name is the apps/v1 set, or, when
// there is none, the extended set of that name; when neither exists the
// error is apps/v1's NotFound. ext may be nil when the caller has no
// client of the extended kind: then only apps/v1 sets are found.
func Find(ctx context.Context, client kubernetes.Interface, ext *ostsclient.Client, namespace string, ref Ref) (*Target, error) {
	if ref.Kind != AnyKind {
		return doorFor(ref.Kind).load(ctx, client, ext, namespace, ref.Name)
	}
	t, err := Load(ctx, client, namespace, ref.Name)
	if ext == nil || !apierrors.IsNotFound(err) {
		return t, err
	}
	if x, xerr := LoadExtended(ctx, client, ext, namespace, ref.Name); xerr == nil {
		return x, nil
	}
	return nil, err
}

// Refresh re-reads the set.
func (t *Target) Refresh(ctx context.Context) error { return t.door().refresh(ctx, t) }

// Kind is the kind of the set.
func (t *Target) Kind() Kind { return kindOf(t.Extended) }

// Ref is how messages name the set, as kubectl does:
// "statefulset.apps/web" or "statefulset.apps.ordinal.dev/web".
func (t *Target) Ref() string { return t.Kind().Resource() + "/" + t.Set.Name }

// Arg is how a command line names the set: "web" for apps/v1, as a bare
// name finds it first, and "osts/web" for the extended kind.
func (t *Target) Arg() string { return t.door().arg(t.Set.Name) }

// Selector is the set's label selector; an invalid one is an error naming
// the set.
func Selector(set *appsv1.StatefulSet) (labels.Selector, error) {
	sel, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("statefulset %s has an invalid selector: %w", set.Name, err)
	}
	return sel, nil
}

// Revisions lists the ControllerRevisions the set controls, oldest first,
// the way kubectl's controlledHistory does: by selector, then controller
// reference.
func (t *Target) Revisions(ctx context.Context) ([]*appsv1.ControllerRevision, error) {
	sel, err := Selector(t.Set)
	if err != nil {
		return nil, err
	}
	list, err := t.Client.AppsV1().ControllerRevisions(t.Set.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("listing revisions of %s: %w", t.Set.Name, err)
	}
	revs := make([]*appsv1.ControllerRevision, 0, len(list.Items))
	for i := range list.Items {
		revs = append(revs, &list.Items[i])
	}
	return OwnedRevisions(t.Set, revs), nil
}

// OwnedRevisions keeps the revisions the set controls, sorted oldest first.
func OwnedRevisions(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	var out []*appsv1.ControllerRevision
	for _, r := range revs {
		if metav1.IsControlledBy(r, set) {
			out = append(out, r)
		}
	}
	revision.Sort(out)
	return out
}

// Pods lists the pods the set controls (controller reference UID).
func (t *Target) Pods(ctx context.Context) ([]*corev1.Pod, error) {
	sel, err := Selector(t.Set)
	if err != nil {
		return nil, err
	}
	list, err := t.Client.CoreV1().Pods(t.Set.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("listing pods of %s: %w", t.Set.Name, err)
	}
	pods := make([]*corev1.Pod, 0, len(list.Items))
	for i := range list.Items {
		pods = append(pods, &list.Items[i])
	}
	return OwnedPods(t.Set, pods), nil
}

// OwnedPods keeps the pods whose controller reference is the set.
func OwnedPods(set *appsv1.StatefulSet, pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if ref := metav1.GetControllerOf(p); ref != nil && ref.UID == set.UID {
			out = append(out, p)
		}
	}
	return out
}

// Claims returns the namespace's claims by name; the planner picks the
// ones it needs. Sets without claim templates need none.
func (t *Target) Claims(ctx context.Context) (map[string]*corev1.PersistentVolumeClaim, error) {
	out := map[string]*corev1.PersistentVolumeClaim{}
	if len(t.Set.Spec.VolumeClaimTemplates) == 0 {
		return out, nil
	}
	list, err := t.Client.CoreV1().PersistentVolumeClaims(t.Set.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing claims of %s: %w", t.Set.Name, err)
	}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out, nil
}

// Retrying runs op, a change of the set guarded by the resourceVersion it
// read, and when the API server answers Conflict (someone, the controller
// writing status included, changed the set since) reads the set again and
// runs op once more on what it now is, a few times at most: op decides
// afresh, so a pause that meanwhile happened is reported, not repeated.
func (t *Target) Retrying(ctx context.Context, op func() (string, error)) (string, error) {
	var msg string
	err := retry.OnError(retry.DefaultRetry, apierrors.IsConflict, func() error {
		var err error
		if msg, err = op(); apierrors.IsConflict(err) {
			if rerr := t.Refresh(ctx); rerr != nil {
				return fmt.Errorf("reading %s again after a conflict: %w", t.Ref(), rerr)
			}
		}
		return err
	})
	return msg, err
}
