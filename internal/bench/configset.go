package bench

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/conflict"
)

// configKey is the key of a benchmark set's ConfigMap.
const configKey = "v"

// configOf is the name of the ConfigMap set reads under the config
// contenders.
func configOf(set string) string { return set + "-config" }

// readConfig gives the extended set ext a ConfigMap of its own, created
// first, that its pods mount and whose data its revisions hold, when the
// writer's contender says so.
func (w extendedWriter) readConfig(ctx context.Context, namespace string, ext *v1alpha1.StatefulSet) error {
	if w.config == "" {
		return nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: configOf(ext.Name), Namespace: namespace}, Data: map[string]string{configKey: "1"}}
	if _, err := w.kube.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating ConfigMap %s: %w", cm.Name, err)
	}
	spec := &ext.Spec.Template.Spec
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}})
	spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "config", MountPath: "/etc/bench"})
	ext.Spec.ConfigRevisions = &v1alpha1.ConfigRevisions{Apply: w.config}
	return nil
}

// copyOf is the copy of set's ConfigMap holding value: the name its
// revision reads (configrev.CopyName), which the observer waits for.
func copyOf(set, value string) string {
	d := configrev.OfConfigMap(&corev1.ConfigMap{Data: map[string]string{configKey: value}})
	return configrev.CopyName(configOf(set), d.Hash())
}

// editConfigAll writes value into every set's ConfigMap, as a user's
// edit does, and waits for each pod to read that data: a config
// rollout. Under a contender whose sets read no ConfigMap it writes
// nothing and the step ends at once.
func editConfigAll(value string) func(context.Context, *harness) error {
	return func(ctx context.Context, h *harness) error {
		if w, ok := h.sets.(extendedWriter); !ok || w.config == "" {
			return nil
		}
		want := h.snapshotWant()
		cms := h.client.CoreV1().ConfigMaps(h.namespace)
		return forEach(h.setNames(), func(name string) error {
			d := want[name]
			d.Config = copyOf(name, value)
			h.setWant(name, d, true)
			return conflict.Retry(func() error {
				cm, err := cms.Get(ctx, configOf(name), metav1.GetOptions{})
				if err != nil {
					return err
				}
				cm.Data = map[string]string{configKey: value}
				_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
				return err
			})
		})
	}
}

// readsConfig reports whether pod reads copy: a volume names it (the
// pod was made at its revision), or its reload record says its live
// ConfigMaps hold it and the pod has moved to it.
func readsConfig(pod *corev1.Pod, copyName string) bool {
	for _, v := range pod.Spec.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == copyName {
			return true
		}
	}
	rec, ok := configrev.ReloadOf(pod.Annotations)
	if !ok || rec.Pending || rec.Revision != pod.Labels[appsv1.StatefulSetRevisionLabel] {
		return false
	}
	for _, l := range rec.Live {
		if l.Copy == copyName {
			return true
		}
	}
	return false
}
