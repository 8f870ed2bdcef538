package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// memberRoleLabel is the label of the simulated leader election, apart
// from roleLabel, which the relabel-primary op moves.
const memberRoleLabel = "member-role"

// randomRoles gives a third of the rolling extended sets a simulated
// leader election (the simulated nodes label one Ready pod leader and the
// others follower) and spec.roles on its label: an exclusive leader and
// followers, both quorum roles in half of them; half of those sets also
// get a switchover handshake, which the simulated nodes answer. The
// switchover proceeds after its timeout: a set scaled to one pod has no
// other pod to hand the role to, and under Halt would hold its leader for
// good, which the integration tests cover. In half of the sets with roles
// the pods keep their role to themselves and answer a role probe
// (nodes.RoleAnswer): the controller's probe writes the label.
func randomRoles(rng *rand.Rand, set *v1alpha1.StatefulSet, all bool) {
	if rng.Intn(3) != 0 && !all {
		return
	}
	if set.Spec.Template.Annotations == nil {
		set.Spec.Template.Annotations = map[string]string{}
	}
	set.Spec.Template.Annotations[nodes.AnnotationRole] = nodes.RoleElect
	set.Spec.Template.Annotations[nodes.AnnotationRoleLabel] = memberRoleLabel
	quorum := rng.Intn(2) == 0 || all
	set.Spec.Roles = &v1alpha1.Roles{LabelKey: memberRoleLabel, Values: []v1alpha1.Role{
		{Name: nodes.RoleLeader, Exclusive: true, Quorum: quorum}, {Name: nodes.RoleFollower, Quorum: quorum}}}
	if rng.Intn(2) == 0 {
		set.Spec.Template.Annotations[nodes.AnnotationRole] = nodes.RoleAnswer
		set.Spec.Roles.RoleProbe = &v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: 8080, Path: "/role"},
			PeriodSeconds: 1, TimeoutSeconds: 1, FailureThreshold: int32(1 + rng.Intn(3))}
	}
	if rng.Intn(2) == 0 || all {
		if set.Spec.Lifecycle == nil {
			set.Spec.Lifecycle = &v1alpha1.Lifecycle{}
		}
		set.Spec.Lifecycle.Switchover = &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{},
			TimeoutSeconds: []int32{5, 20}[rng.Intn(2)], FailurePolicy: v1alpha1.HookProceed}
	}
}

// randomBudget gives half of the sets with quorum roles a budget of their
// own (spec.disruptionBudget), from a stream of its own so that a seed's
// other draws stay as they were: the drain-node and cordon-node ops then
// meet it, and the invariant checker's quorum-floor and switchover-evict
// rules judge every eviction of their pods.
func randomBudget(rng *rand.Rand, set *v1alpha1.StatefulSet, all bool) {
	if set.Spec.Roles == nil || !set.Spec.Roles.Values[0].Quorum || (rng.Intn(2) != 0 && !all) {
		return
	}
	set.Spec.DisruptionBudget = &v1alpha1.DisruptionBudget{}
}

func describeRoles(set *v1alpha1.StatefulSet) string {
	if set.Spec.Roles == nil {
		return ""
	}
	out := ", roles"
	if set.Spec.Roles.Values[0].Quorum {
		out += " (quorum)"
	}
	if set.Spec.DisruptionBudget != nil {
		out += ", own budget"
	}
	if p := set.Spec.Roles.RoleProbe; p != nil {
		out += fmt.Sprintf(", role probe (threshold %d)", p.FailureThreshold)
	}
	if l := set.Spec.Lifecycle; l != nil && l.Switchover != nil {
		out += ", switchover"
	}
	return out
}

// killLeader deletes a pod the simulated election made leader, as a
// node or process failure would; the election moves leadership.
func (r *run) killLeader(ctx context.Context) bool {
	list, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{LabelSelector: memberRoleLabel + "=" + nodes.RoleLeader})
	if err != nil || len(list.Items) == 0 {
		return false
	}
	p := list.Items[r.rng.Intn(len(list.Items))]
	r.watcher.ExternalDelete(p.UID)
	err = r.client.CoreV1().Pods(r.ns).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}})
	r.logf("kill leader %s (%v)", p.Name, errWord(err))
	return err == nil || apierrors.IsNotFound(err)
}

// breakProbe makes the role probe of a pod of a set with one fail (503),
// hang, or answer again, as an application in trouble would; fixAll
// makes every probe answer again.
func (r *run) breakProbe(ctx context.Context) bool {
	list, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false
	}
	var probed []corev1.Pod
	for _, p := range list.Items {
		if p.Annotations[nodes.AnnotationRole] == nodes.RoleAnswer && p.DeletionTimestamp == nil {
			probed = append(probed, p)
		}
	}
	if len(probed) == 0 {
		return false
	}
	p := probed[r.rng.Intn(len(probed))]
	mode := []string{nodes.ProbeFail, nodes.ProbeHang, ""}[r.rng.Intn(3)]
	err = r.annotateProbe(ctx, p.Name, mode)
	r.logf("role probe of %s: %q (%v)", p.Name, mode, errWord(err))
	return err == nil
}

// annotateProbe sets pod's nodes.AnnotationRoleProbe to mode, or removes
// it when mode is empty.
func (r *run) annotateProbe(ctx context.Context, pod, mode string) error {
	var v any
	if mode != "" {
		v = mode
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{nodes.AnnotationRoleProbe: v}}})
	_, err := r.client.CoreV1().Pods(r.ns).Patch(ctx, pod, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// fixProbes makes every probe of the namespace answer again.
func (r *run) fixProbes(ctx context.Context) {
	list, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		r.logf("fixing role probes: %v", err)
		return
	}
	for _, p := range list.Items {
		if _, ok := p.Annotations[nodes.AnnotationRoleProbe]; ok {
			err := r.annotateProbe(ctx, p.Name, "")
			r.logf("role probe of %s answers again (%v)", p.Name, errWord(err))
		}
	}
}
