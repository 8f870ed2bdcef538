package setops

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/revision"
)

// Target is one set, as last read, and the client to reach it.
type Target struct {
	Client kubernetes.Interface
	Set    *appsv1.StatefulSet
}

// Load reads the set. A missing set is the API's NotFound error, unwrapped,
// so its message is the API's own.
func Load(ctx context.Context, client kubernetes.Interface, namespace, name string) (*Target, error) {
	set, err := client.AppsV1().StatefulSets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return &Target{Client: client, Set: set}, nil
}

// Refresh re-reads the set.
func (t *Target) Refresh(ctx context.Context) error {
	set, err := t.Client.AppsV1().StatefulSets(t.Set.Namespace).Get(ctx, t.Set.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	t.Set = set
	return nil
}

// Ref is how messages name the set, as kubectl does.
func (t *Target) Ref() string { return "statefulset.apps/" + t.Set.Name }

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
