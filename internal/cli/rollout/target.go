package rollout

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// setKinds are the spellings kubectl accepts for a StatefulSet.
var setKinds = map[string]bool{
	"statefulset": true, "statefulsets": true, "sts": true,
	"statefulset.apps": true, "statefulsets.apps": true,
}

// setName accepts "web" or "statefulset/web" (and kubectl's other
// spellings); any other kind is a usage error.
func setName(arg string) (string, error) {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok {
		name, kind = arg, "statefulset"
	}
	switch {
	case !setKinds[strings.ToLower(kind)]:
		return "", exit.Usage(fmt.Errorf("%s: only statefulsets are supported", arg))
	case name == "" || strings.Contains(name, "/"):
		return "", exit.Usage(fmt.Errorf("%q is not a statefulset name", arg))
	}
	return name, nil
}

// target is one set and the client to reach it.
type target struct {
	client kubernetes.Interface
	set    *appsv1.StatefulSet
}

// load parses the SET argument, connects and reads the set.
func (o *options) load(ctx context.Context, arg string) (*target, error) {
	name, err := setName(arg)
	if err != nil {
		return nil, err
	}
	client, ns, err := o.client()
	if err != nil {
		return nil, err
	}
	set, err := client.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, classify(err)
	}
	return &target{client: client, set: set}, nil
}

func (t *target) selector() (labels.Selector, error) {
	sel, err := metav1.LabelSelectorAsSelector(t.set.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("statefulset %s has an invalid selector: %w", t.set.Name, err)
	}
	return sel, nil
}

// revisions lists the ControllerRevisions the set controls, oldest first,
// the way kubectl's controlledHistory does: by selector, then controller
// reference.
func (t *target) revisions(ctx context.Context) ([]*appsv1.ControllerRevision, error) {
	sel, err := t.selector()
	if err != nil {
		return nil, err
	}
	list, err := t.client.AppsV1().ControllerRevisions(t.set.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, classify(fmt.Errorf("listing revisions of %s: %w", t.set.Name, err))
	}
	var out []*appsv1.ControllerRevision
	for i := range list.Items {
		if metav1.IsControlledBy(&list.Items[i], t.set) {
			out = append(out, &list.Items[i])
		}
	}
	revision.Sort(out)
	return out, nil
}

// pods lists the pods the set controls (controller reference UID).
func (t *target) pods(ctx context.Context) ([]*corev1.Pod, error) {
	sel, err := t.selector()
	if err != nil {
		return nil, err
	}
	list, err := t.client.CoreV1().Pods(t.set.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, classify(fmt.Errorf("listing pods of %s: %w", t.set.Name, err))
	}
	var out []*corev1.Pod
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil && ref.UID == t.set.UID {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

// claims returns the namespace's claims by name; the planner picks the
// ones it needs. Sets without claim templates need none.
func (t *target) claims(ctx context.Context) (map[string]*corev1.PersistentVolumeClaim, error) {
	out := map[string]*corev1.PersistentVolumeClaim{}
	if len(t.set.Spec.VolumeClaimTemplates) == 0 {
		return out, nil
	}
	list, err := t.client.CoreV1().PersistentVolumeClaims(t.set.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, classify(fmt.Errorf("listing claims of %s: %w", t.set.Name, err))
	}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out, nil
}

// refresh re-reads the set.
func (t *target) refresh(ctx context.Context) error {
	set, err := t.client.AppsV1().StatefulSets(t.set.Namespace).Get(ctx, t.set.Name, metav1.GetOptions{})
	if err != nil {
		return classify(err)
	}
	t.set = set
	return nil
}

// ref is how messages name the set, as kubectl does.
func (t *target) ref() string { return "statefulset.apps/" + t.set.Name }
