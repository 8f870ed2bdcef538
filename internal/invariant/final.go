package invariant

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Snapshot is the state of a namespace at one moment, for the final-state
// rules.
type Snapshot struct {
	Now       time.Time
	Sets      []appsv1.StatefulSet
	Extended  []v1alpha1.StatefulSet
	Pods      []corev1.Pod
	Revisions []appsv1.ControllerRevision
}

// TakeSnapshot lists what CheckFinal needs in namespace ns (the extended
// sets when clients.Extended is set).
func TakeSnapshot(ctx context.Context, clients Clients, ns string) (Snapshot, error) {
	snap := Snapshot{Now: time.Now()}
	client := clients.Kube
	if clients.Extended != nil {
		ext, err := clients.Extended.StatefulSets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return snap, fmt.Errorf("listing extended statefulsets: %w", err)
		}
		snap.Extended = ext.Items
	}
	sets, err := client.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return snap, fmt.Errorf("listing statefulsets: %w", err)
	}
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return snap, fmt.Errorf("listing pods: %w", err)
	}
	revs, err := client.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return snap, fmt.Errorf("listing revisions: %w", err)
	}
	snap.Sets, snap.Pods, snap.Revisions = sets.Items, pods.Items, revs.Items
	return snap, nil
}

// CheckFinal checks RuleStatus on a converged snapshot.
func CheckFinal(snap Snapshot, opts Options) []Violation {
	opts = opts.withDefaults()
	r := newReplay(opts, nil)
	revs := map[string]bool{}
	for _, rev := range snap.Revisions {
		revs[rev.Name] = true
	}
	var out []Violation
	for i := range snap.Sets {
		set := &snap.Sets[i]
		if set.DeletionTimestamp != nil {
			continue
		}
		for _, msg := range r.statusProblems(set, podsOf(set, snap.Pods), revs, snap.Now) {
			out = append(out, Violation{Rule: RuleStatus, Object: key(set.Namespace, set.Name), Time: snap.Now, Message: msg})
		}
	}
	for i := range snap.Extended {
		set := &snap.Extended[i]
		if set.DeletionTimestamp != nil {
			continue
		}
		view := ExtendedView(set)
		pods := podsOf(view, snap.Pods)
		msgs := append(r.statusProblems(view, pods, revs, snap.Now), r.extendedStatusProblems(set, pods, snap.Now)...)
		for _, msg := range msgs {
			out = append(out, Violation{Rule: RuleStatus, Object: setKey(KindExtendedSet, set.Namespace, set.Name), Time: snap.Now, Message: msg})
		}
	}
	return out
}

func podsOf(set *appsv1.StatefulSet, pods []corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range pods {
		p := &pods[i]
		if _, ok := parseOrdinal(set.Name, p.Name); ok && owned(p, set.UID) {
			out = append(out, p)
		}
	}
	return out
}

func (r *replay) statusProblems(set *appsv1.StatefulSet, pods []*corev1.Pod, revs map[string]bool, now time.Time) []string {
	var want appsv1.StatefulSetStatus
	for _, p := range pods {
		if p.Status.Phase == "" {
			continue
		}
		want.Replicas++
		if p.Status.Phase == corev1.PodRunning && r.healthyAt(withoutDeletion(p), 0, now) {
			want.ReadyReplicas++
			if r.healthyAt(withoutDeletion(p), set.Spec.MinReadySeconds, now.Add(-r.opts.ReadySlack)) {
				want.AvailableReplicas++
			}
		}
		if p.DeletionTimestamp == nil {
			rev := p.Labels[RevisionLabel]
			if rev == set.Status.CurrentRevision {
				want.CurrentReplicas++
			}
			if rev == set.Status.UpdateRevision {
				want.UpdatedReplicas++
			}
		}
	}
	got := set.Status
	var out []string
	check := func(field string, g, w int32) {
		if g != w {
			out = append(out, fmt.Sprintf("status.%s is %d, the pods say %d", field, g, w))
		}
	}
	if got.ObservedGeneration != set.Generation {
		out = append(out, fmt.Sprintf("status.observedGeneration %d != generation %d", got.ObservedGeneration, set.Generation))
	}
	check("replicas", got.Replicas, want.Replicas)
	check("readyReplicas", got.ReadyReplicas, want.ReadyReplicas)
	check("availableReplicas", got.AvailableReplicas, want.AvailableReplicas)
	check("currentReplicas", got.CurrentReplicas, want.CurrentReplicas)
	check("updatedReplicas", got.UpdatedReplicas, want.UpdatedReplicas)
	for _, rev := range []string{got.CurrentRevision, got.UpdateRevision} {
		if !revs[rev] {
			out = append(out, fmt.Sprintf("status names revision %q, which does not exist", rev))
		}
	}
	for _, p := range pods {
		if rev := p.Labels[RevisionLabel]; rev != "" && !revs[rev] {
			out = append(out, fmt.Sprintf("pod %s carries revision %q, which does not exist", p.Name, rev))
		}
	}
	return out
}

// withoutDeletion lets healthyAt judge readiness of a terminating pod,
// which upstream's status counts as ready.
func withoutDeletion(p *corev1.Pod) *corev1.Pod {
	if p.DeletionTimestamp == nil {
		return p
	}
	q := *p
	q.DeletionTimestamp = nil
	return &q
}
