package chaos

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/invariant"
)

// converge waits, within -converge, until the controller in charge runs
// (an Ordinal replica holds the lease: a set another controller already
// brought to its target must not count as converged before the clean
// controller has taken over) and every set has reached its target:
// observedGeneration caught up; exactly the pods of its ordinal range,
// each Running, Ready and not terminating; those at or above the
// partition (counted from the start ordinal) at status.updateRevision and
// those below at status.currentRevision or, left alone as upstream leaves
// them, at another revision still in the set's history; a bound claim per
// in-range pod; no claims left owned by a pod for condemned ordinals under
// whenScaled Delete; and a status that agrees with the pods
// (invariant.CheckFinal).
func (r *run) converge(ctx context.Context) (bool, string) {
	deadline := time.Now().Add(*flagConverge)
	stopped := time.Now()
	why := ""
	released := map[string]int{}
	for time.Now().Before(deadline) {
		r.replaceStuckPods(ctx)
		r.answerAllHooks(ctx)
		r.releaseHolds(ctx, released)
		if why = r.notConverged(ctx); why == "" {
			r.logf("converged %s after the faults stopped", time.Since(stopped).Round(100*time.Millisecond))
			return true, ""
		}
		time.Sleep(500 * time.Millisecond)
	}
	return false, fmt.Sprintf("not converged within %s: %s", *flagConverge, why)
}

// maxReleases is how often converge releases holds of one set.
const maxReleases = 3

// releaseHolds releases, as a user would once the cause is fixed
// (`ordinal rollout resume`, which names the hold in
// v1alpha1.ReleaseHoldAnnotation), a hold the controller recorded on an
// extended set that the user's fixes did not end: a rollout the chaos
// failed (a pod a fault failed, a node that went away, a hook that timed
// out under Halt) with a template that is not broken, so no fix changes
// it. A release retries the held revision; the controller records a new
// hold if it fails again, which is released again at most maxReleases
// times per set, each logged in the scenario; one more, and the run fails
// on the hold.
func (r *run) releaseHolds(ctx context.Context, released map[string]int) {
	for _, cs := range r.sets {
		if !cs.extended || released[cs.name] >= maxReleases {
			continue
		}
		set, err := r.ext.StatefulSets(r.ns).Get(ctx, cs.name, metav1.GetOptions{})
		// A hold of a spec the controller has not observed may be ending
		// with the user's fix: only the observed one is released.
		if err != nil || set.Status.Hold == nil || set.Status.ObservedGeneration != set.Generation ||
			set.Annotations[v1alpha1.ReleaseHoldAnnotation] == set.Status.Hold.ID {
			continue
		}
		h := *set.Status.Hold
		released[cs.name]++
		err = r.mutateExtended(ctx, cs, func(s *v1alpha1.StatefulSet) {
			if s.Annotations == nil {
				s.Annotations = map[string]string{}
			}
			s.Annotations[v1alpha1.ReleaseHoldAnnotation] = h.ID
		})
		r.logf("release %s of %s, recorded by the controller (%s) (%s)", h.ID, cs.name, holdWords(&h), errWord(err))
	}
}

func (r *run) notConverged(ctx context.Context) string {
	if why := r.notInCharge(); why != "" {
		return why
	}
	snap, err := invariant.TakeSnapshot(ctx, r.clients(), r.ns)
	if err != nil {
		return err.Error()
	}
	claims, err := r.client.CoreV1().PersistentVolumeClaims(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	for i := range snap.Sets {
		set := &snap.Sets[i]
		if why := setNotConverged(set, invariant.Ordinals(set, nil), snap.Pods, snap.Revisions, claims.Items); why != "" {
			return why
		}
	}
	for i := range snap.Extended {
		if why := extendedNotConverged(&snap.Extended[i], snap.Pods, snap.Revisions, claims.Items); why != "" {
			return why
		}
	}
	if vs := invariant.CheckFinal(snap, invariant.Options{}); len(vs) > 0 {
		return vs[0].String()
	}
	return ""
}

// notInCharge says why no Ordinal process of the controller in charge
// leads yet; "" when one does, or when the controller in charge is not
// Ordinal's replicas (tests that start their own).
func (r *run) notInCharge() string {
	if r.charge.who != invariant.Ordinal || len(r.charge.procs) == 0 {
		return ""
	}
	for _, p := range r.charge.procs {
		if p.leads() {
			return ""
		}
	}
	return "no Ordinal replica holds the lease yet"
}

func setNotConverged(set *appsv1.StatefulSet, ords []int32, pods []corev1.Pod, revisions []appsv1.ControllerRevision,
	claims []corev1.PersistentVolumeClaim,
) string {
	st := set.Status
	if st.ObservedGeneration != set.Generation {
		return fmt.Sprintf("%s: observedGeneration %d < generation %d", set.Name, st.ObservedGeneration, set.Generation)
	}
	// The expectations come from the spec through the checker's own
	// derivation (invariant.Ordinals, FirstUpdatedOrdinal), never from the
	// controller's code, which would agree with its own mistakes.
	firstUpdated := invariant.FirstUpdatedOrdinal(set)
	// A pod below the partition is never updated: one that an earlier
	// roll-out (before the partition was raised) moved to a newer
	// revision keeps it until it is deleted, when it comes back at
	// currentRevision.
	history := map[string]bool{}
	for i := range revisions {
		if metav1.IsControlledBy(&revisions[i], set) {
			history[revisions[i].Name] = true
		}
	}
	have := map[string]*corev1.Pod{}
	for i := range pods {
		have[pods[i].Name] = &pods[i]
	}
	for _, ord := range ords {
		name := fmt.Sprintf("%s-%d", set.Name, ord)
		p := have[name]
		delete(have, name)
		kept := int64(ord) < firstUpdated
		want := st.UpdateRevision
		if kept {
			want = st.CurrentRevision
		}
		switch {
		case p == nil:
			return name + " is missing"
		case p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning || !podReady(p):
			return fmt.Sprintf("%s is %s, not Running and Ready", name, p.Status.Phase)
		case kept && history[p.Labels[appsv1.ControllerRevisionHashLabelKey]]:
		case p.Labels[appsv1.ControllerRevisionHashLabelKey] != want:
			return fmt.Sprintf("%s is at %s, want %s", name, p.Labels[appsv1.ControllerRevisionHashLabelKey], want)
		}
	}
	for name := range have {
		if len(name) > len(set.Name) && name[:len(set.Name)+1] == set.Name+"-" {
			return name + " is outside the set's ordinals and still exists"
		}
	}
	return claimsNotConverged(set, ords, claims)
}

func claimsNotConverged(set *appsv1.StatefulSet, ords []int32, claims []corev1.PersistentVolumeClaim) string {
	bound, podOwned := map[string]bool{}, map[string]bool{}
	for _, c := range claims {
		bound[c.Name] = c.Status.Phase == corev1.ClaimBound && c.DeletionTimestamp == nil
		for _, ref := range c.OwnerReferences {
			podOwned[c.Name] = podOwned[c.Name] || ref.Kind == "Pod"
		}
	}
	deleteScaled := set.Spec.PersistentVolumeClaimRetentionPolicy.WhenScaled == appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	for _, ord := range ords {
		if name := fmt.Sprintf("data-%s-%d", set.Name, ord); !bound[name] {
			return "claim " + name + " is not bound"
		}
	}
	for _, c := range claims {
		ord, ok := parseOrdinal("data-"+set.Name, c.Name)
		if ok && !slices.Contains(ords, ord) && deleteScaled && podOwned[c.Name] {
			// A condemned claim goes with its pod (the garbage collector
			// follows the Pod owner reference). A claim whose pod was
			// already gone at scale-down never gets that reference and
			// stays, as upstream's does (KEP-1847).
			return "claim " + c.Name + " of a condemned ordinal is owned by its pod and still exists under whenScaled Delete"
		}
	}
	return ""
}

// extendedNotConverged is setNotConverged for an extended set, read
// through its apps/v1 fields; a paused one has not converged (fixAll
// resumed every set), nor has a held one (its spec's revision is not the
// one it runs).
func extendedNotConverged(set *v1alpha1.StatefulSet, pods []corev1.Pod, revisions []appsv1.ControllerRevision, claims []corev1.PersistentVolumeClaim) string {
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Paused {
		return set.Name + " is paused"
	}
	if h := set.Status.Hold; h != nil {
		return set.Name + " is " + holdWords(h)
	}
	view := invariant.ExtendedView(set)
	ords := withoutOffline(invariant.Ordinals(view, invariant.ReservedOrdinals(set)), invariant.OfflineOrdinals(set))
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.PartitionMode == v1alpha1.PartitionCount {
		return countNotConverged(set, view, ords, pods, revisions, claims)
	}
	if why := setNotConverged(view, ords, pods, revisions, claims); why != "" {
		return why
	}
	if set.Spec.UpdateStrategy.Type != v1alpha1.RollingUpdateStatefulSetStrategyType {
		return "" // only a rolling update patches claims
	}
	var updated []int32
	for _, ord := range ords {
		if int64(ord) >= invariant.FirstUpdatedOrdinal(view) {
			updated = append(updated, ord)
		}
	}
	return claimsNotGrown(set, updated, claims)
}

// claimsNotGrown says which claim of an InPlace set, among the ordinals
// the rolling update reaches (at or above the partition, which holds the
// storage of the pods below it too), has not reached its template's size.
func claimsNotGrown(set *v1alpha1.StatefulSet, ords []int32, claims []corev1.PersistentVolumeClaim) string {
	if set.Spec.VolumeClaimUpdateStrategy.Type != v1alpha1.InPlaceVolumeClaimUpdateStrategyType {
		return ""
	}
	byName := map[string]*corev1.PersistentVolumeClaim{}
	for i := range claims {
		byName[claims[i].Name] = &claims[i]
	}
	for _, tmpl := range set.Spec.VolumeClaimTemplates {
		want := tmpl.Spec.Resources.Requests[corev1.ResourceStorage]
		for _, ord := range ords {
			name := fmt.Sprintf("%s-%s-%d", tmpl.Name, set.Name, ord)
			c := byName[name]
			if c == nil {
				return "claim " + name + " is missing"
			}
			if got := c.Status.Capacity[corev1.ResourceStorage]; got.Cmp(want) < 0 {
				return fmt.Sprintf("claim %s has %s, not yet the template's %s", name, got.String(), want.String())
			}
		}
	}
	return ""
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// finalChecks re-checks the converged status once more a little later (a
// stale status write after convergence would show here).
func (r *run) finalChecks(ctx context.Context) []invariant.Violation {
	time.Sleep(2 * time.Second)
	snap, err := invariant.TakeSnapshot(ctx, r.clients(), r.ns)
	if err != nil {
		return []invariant.Violation{{Rule: invariant.RuleStatus, Object: r.ns, Message: "snapshot: " + err.Error()}}
	}
	return invariant.CheckFinal(snap, invariant.Options{})
}

// parseOrdinal reads the ordinal of a pod (or the rest of a claim's name)
// "<setName>-<n>".
func parseOrdinal(setName, name string) (int32, bool) {
	digits, ok := strings.CutPrefix(name, setName+"-")
	if !ok || digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 32)
	return int32(n), err == nil
}
