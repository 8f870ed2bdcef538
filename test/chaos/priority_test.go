package chaos

import (
	"context"
	"math/rand"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// roleLabel is the label the primary-last priority rule reads.
const roleLabel = "role"

// randomPriority gives half the rolling extended sets a rule that updates
// the pod labelled role=primary last; the relabel-primary op moves the
// label.
func randomPriority(rng *rand.Rand, ru *v1alpha1.RollingUpdateStatefulSetStrategy, all bool) {
	if rng.Intn(2) == 0 && !all {
		return
	}
	ru.Priority = []v1alpha1.UpdatePriorityRule{
		{Weight: -100, Selector: metav1.LabelSelector{MatchLabels: map[string]string{roleLabel: "primary"}}},
	}
}

// relabelPrimary labels a random pod role=primary and takes the label off
// every other pod of the namespace, as a database operator does after a
// failover; it may happen in the middle of a rollout.
func (r *run) relabelPrimary(ctx context.Context) bool {
	p := r.randomPod(ctx)
	if p == nil {
		return false
	}
	pods := r.client.CoreV1().Pods(r.ns)
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: roleLabel + "=primary"})
	if err == nil {
		for _, other := range list.Items {
			if other.Name != p.Name {
				_, _ = pods.Patch(ctx, other.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"`+roleLabel+`":null}}}`), metav1.PatchOptions{})
			}
		}
	}
	_, err = pods.Patch(ctx, p.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"`+roleLabel+`":"primary"}}}`), metav1.PatchOptions{})
	r.logf("label pod %s %s=primary (%v)", p.Name, roleLabel, errWord(err))
	return err == nil
}
