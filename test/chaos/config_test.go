package chaos

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/conflict"
)

var flagConfig = flag.Float64("config", 0.5,
	"probability that an extended set reads a ConfigMap through spec.configRevisions (apply Restart or Reload, half each) and the run edits it "+
		"at 1-3 random steps; drawn from a stream of its own, so a seed's other steps stay as they were")

// Config edits: an extended set of the run may mount a ConfigMap of its
// own, <set>-config, whose data its revisions hold (spec.configRevisions,
// apply Restart or Reload without a hook), and the run edits that
// ConfigMap at random steps, as a user or a GitOps tool does, while the
// other ops and faults go on: each edit is a new revision that rolls out,
// by recreating the pods or by reloading them, and the checker's
// RuleConfigCopies judges what each pod reads. Every draw comes from
// configStream, never r.rng.
type configEdits struct {
	rng *rand.Rand
	// sets are the names of the sets that read a ConfigMap; at the steps
	// of the edits, by step.
	sets  []string
	at    map[int]int
	count int
}

func newConfigEdits(seed int64, steps int) *configEdits {
	c := &configEdits{rng: rand.New(rand.NewSource(seed*7919 + 43)), at: map[int]int{}}
	for range 1 + c.rng.Intn(3) {
		c.at[c.rng.Intn(steps)]++
	}
	return c
}

// configure gives an extended set, with probability -config (always in
// an all-features run), a ConfigMap it mounts and whose data its
// revisions hold, created before the set.
func (r *run) configure(ctx context.Context, set *v1alpha1.StatefulSet) error {
	c := r.config
	if c.rng.Float64() >= *flagConfig && !r.all {
		return nil
	}
	name := set.Name + "-config"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: r.ns}, Data: map[string]string{"v": "0"}}
	if _, err := r.client.CoreV1().ConfigMaps(r.ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating ConfigMap %s: %w", name, err)
	}
	spec := &set.Spec.Template.Spec
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}})
	spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "config", MountPath: "/etc/chaos"})
	apply := v1alpha1.ConfigApplyRestart
	if c.rng.Intn(2) == 0 {
		apply = v1alpha1.ConfigApplyReload
	}
	set.Spec.ConfigRevisions = &v1alpha1.ConfigRevisions{Apply: apply}
	c.sets = append(c.sets, set.Name)
	r.logf("set %s reads ConfigMap %s (configRevisions apply %s)", set.Name, name, apply)
	return nil
}

// configAt runs the config edits of step i.
func (r *run) configAt(ctx context.Context, i int) {
	for range r.config.at[i] {
		r.editConfig(ctx)
	}
}

// editConfig writes a new value into the ConfigMap of one set that reads
// one.
func (r *run) editConfig(ctx context.Context) {
	c := r.config
	if len(c.sets) == 0 {
		return
	}
	set := c.sets[c.rng.Intn(len(c.sets))]
	c.count++
	value := strconv.Itoa(c.count)
	cms := r.client.CoreV1().ConfigMaps(r.ns)
	err := conflict.Retry(func() error {
		cm, err := cms.Get(ctx, set+"-config", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Data = map[string]string{"v": value}
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
	r.logf("config-edit %s-config v=%s (%v)", set, value, errWord(err))
}
