package bench

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/conflict"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// setWriter writes the benchmark's sets in one API kind: apps/v1, or the
// extended kind for the ordinal-osts contender. Both take the same
// apps/v1 object, so every scenario is the same manifest in either kind.
type setWriter interface {
	create(ctx context.Context, namespace string, set *appsv1.StatefulSet) error
	// change reads the named set, applies change to its apps/v1 fields and
	// writes it back, retrying on conflicts.
	change(ctx context.Context, namespace, name string, change func(*appsv1.StatefulSet)) error
	delete(ctx context.Context, namespace, name string) error
}

// writerFor returns the set writer the contender's scenarios use.
func writerFor(contender string, apps kubernetes.Interface, extended *ostsclient.Client) setWriter {
	switch contender {
	case ContenderOrdinalExtended, ContenderOrdinalExtendedBefore:
		return extendedWriter{client: extended}
	case ContenderOrdinalInPlace:
		return extendedWriter{client: extended, policy: v1alpha1.PodUpdateInPlaceIfPossible}
	case ContenderOrdinalOverrides:
		return extendedWriter{client: extended, overrides: overrideGroups()}
	case ContenderOrdinalConfig:
		return extendedWriter{client: extended, kube: apps, config: v1alpha1.ConfigApplyRestart}
	case ContenderOrdinalReload:
		return extendedWriter{client: extended, kube: apps, config: v1alpha1.ConfigApplyReload}
	}
	return appsWriter{apps}
}

// setResource returns the resource of the sets the contender's scenarios
// write.
func setResource(contender string) schema.GroupVersionResource {
	if _, ok := writerFor(contender, nil, nil).(extendedWriter); ok {
		return v1alpha1.Resource
	}
	return appsv1.SchemeGroupVersion.WithResource("statefulsets")
}

type appsWriter struct{ client kubernetes.Interface }

func (w appsWriter) create(ctx context.Context, namespace string, set *appsv1.StatefulSet) error {
	_, err := w.client.AppsV1().StatefulSets(namespace).Create(ctx, set, metav1.CreateOptions{})
	return err
}

func (w appsWriter) change(ctx context.Context, namespace, name string, change func(*appsv1.StatefulSet)) error {
	sets := w.client.AppsV1().StatefulSets(namespace)
	return conflict.Retry(func() error {
		set, err := sets.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(set)
		_, err = sets.Update(ctx, set, metav1.UpdateOptions{})
		return err
	})
}

func (w appsWriter) delete(ctx context.Context, namespace, name string) error {
	return w.client.AppsV1().StatefulSets(namespace).Delete(ctx, name,
		metav1.DeleteOptions{PropagationPolicy: ptrTo(metav1.DeletePropagationBackground)})
}

// extendedWriter writes the extended kind, with policy as
// podUpdatePolicy when it is set.
type extendedWriter struct {
	client    *ostsclient.Client
	policy    v1alpha1.PodUpdatePolicy
	overrides []v1alpha1.OrdinalOverride
	// config, when set, gives each set a ConfigMap of its own that it
	// mounts and its revisions hold, written through kube (configset.go).
	config v1alpha1.ConfigApply
	kube   kubernetes.Interface
	// ownBudget gives each set spec.disruptionBudget (one pod at most)
	// and nodeDrainPolicy Move (withOwnBudget).
	ownBudget bool
}

// extendedKind reports whether w writes the extended kind.
func extendedKind(w setWriter) bool {
	_, ok := w.(extendedWriter)
	return ok
}

// withOwnBudget returns w writing sets that keep a disruption budget of
// their own, of one pod, and move their members off a cordoned node
// themselves (spec.disruptionBudget, spec.nodeDrainPolicy: Move). apps/v1
// has neither: an apps/v1 writer is returned as it is, and a scenario
// that wants a budget for its sets writes one (nodedrain.go).
func withOwnBudget(w setWriter) setWriter {
	if e, ok := w.(extendedWriter); ok {
		e.ownBudget = true
		return e
	}
	return w
}

func (w extendedWriter) create(ctx context.Context, namespace string, set *appsv1.StatefulSet) error {
	ext, err := w.extended(set)
	if err != nil {
		return err
	}
	if err := w.readConfig(ctx, namespace, ext); err != nil {
		return err
	}
	_, err = w.client.StatefulSets(namespace).Create(ctx, ext, metav1.CreateOptions{})
	return err
}

// extended is set in the extended kind, with the writer's own fields.
func (w extendedWriter) extended(set *appsv1.StatefulSet) (*v1alpha1.StatefulSet, error) {
	ext := &v1alpha1.StatefulSet{}
	if err := convertJSON(set, ext); err != nil {
		return nil, err
	}
	ext.APIVersion, ext.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.Kind.Kind
	if w.policy != "" {
		if ext.Spec.UpdateStrategy.RollingUpdate == nil {
			ext.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{}
		}
		ext.Spec.UpdateStrategy.RollingUpdate.PodUpdatePolicy = w.policy
	}
	ext.Spec.Overrides = w.overrides
	if w.ownBudget {
		one := intstr.FromInt32(1)
		ext.Spec.DisruptionBudget = &v1alpha1.DisruptionBudget{MaxUnavailable: &one}
		ext.Spec.NodeDrainPolicy = v1alpha1.NodeDrainMove
	}
	return ext, nil
}

// change applies change to the set's apps/v1 reading and copies back the
// fields the scenarios change (replicas and the pod template); the
// extended kind's own fields stay as they are.
func (w extendedWriter) change(ctx context.Context, namespace, name string, change func(*appsv1.StatefulSet)) error {
	sets := w.client.StatefulSets(namespace)
	return conflict.Retry(func() error {
		ext, err := sets.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		apps := &appsv1.StatefulSet{}
		if err := convertJSON(ext, apps); err != nil {
			return err
		}
		change(apps)
		ext.Spec.Replicas, ext.Spec.Template = apps.Spec.Replicas, apps.Spec.Template
		_, err = sets.Update(ctx, ext, metav1.UpdateOptions{})
		return err
	})
}

func (w extendedWriter) delete(ctx context.Context, namespace, name string) error {
	return w.client.StatefulSets(namespace).Delete(ctx, name,
		metav1.DeleteOptions{PropagationPolicy: ptrTo(metav1.DeletePropagationBackground)})
}

// convertJSON reads from's JSON into to: the two kinds share their JSON.
func convertJSON(from, to any) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return fmt.Errorf("encoding %T: %w", from, err)
	}
	if err := json.Unmarshal(raw, to); err != nil {
		return fmt.Errorf("decoding %T: %w", to, err)
	}
	return nil
}

// overrideGroups are the ordinal-overrides contender's three groups:
// ordinal 0 with an environment variable and a label, 10-19 with an
// annotation, 150-199 with a label. None sets the image, so an image
// change rolls every pod, as it does without overrides.
func overrideGroups() []v1alpha1.OrdinalOverride {
	one := func(name string, ordinals intstr.IntOrString, t v1alpha1.OverrideTemplate) v1alpha1.OrdinalOverride {
		return v1alpha1.OrdinalOverride{Name: name, Ordinals: []intstr.IntOrString{ordinals}, Template: &t}
	}
	return []v1alpha1.OrdinalOverride{
		one("first", intstr.FromInt32(0), v1alpha1.OverrideTemplate{
			Metadata: &v1alpha1.OverrideMetadata{Labels: map[string]string{"tier": "first"}},
			Spec:     &v1alpha1.OverridePodSpec{Containers: []v1alpha1.ContainerOverride{{Name: "app", Env: []corev1.EnvVar{{Name: "ROLE", Value: "first"}}}}}}),
		one("mid", intstr.FromString("10-19"), v1alpha1.OverrideTemplate{
			Metadata: &v1alpha1.OverrideMetadata{Annotations: map[string]string{"bench.ordinal.dev/group": "mid"}}}),
		one("tail", intstr.FromString("150-199"), v1alpha1.OverrideTemplate{
			Metadata: &v1alpha1.OverrideMetadata{Labels: map[string]string{"tier": "tail"}}}),
	}
}
