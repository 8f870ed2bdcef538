package planner

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// UpdateClaimStorage patches a claim towards its template: the action's
// Claim holds only the fields to write (the storage request,
// volumeAttributesClassName, labels and annotations to add or change), and
// its resourceVersion.
const UpdateClaimStorage Kind = "UpdateClaimStorage"

// podStorage is a pod's claims compared with the update revision's
// templates.
type podStorage struct {
	slot   slot
	claims []claimCheck
}

func (s podStorage) patches() (out []claimCheck) {
	for _, c := range s.claims {
		if c.patch != nil {
			out = append(out, c)
		}
	}
	return out
}

// progress is the claims' work still under way, in words; empty when none.
func (s podStorage) progress() string {
	var out []string
	for _, c := range s.claims {
		if c.progress != "" {
			out = append(out, c.progress)
		}
	}
	return strings.Join(out, "; ")
}

func (s podStorage) failure() *PodFailure {
	for _, c := range s.claims {
		if c.failure != nil {
			return c.failure
		}
	}
	return nil
}

// disruptive reports whether a patch starts a resize or modification:
// that takes a maxUnavailable slot, a change of labels alone does not.
func (s podStorage) disruptive() bool {
	return slices.ContainsFunc(s.patches(), func(c claimCheck) bool {
		_, resize := storageOf(c.patch.Spec.Resources.Requests)
		return resize || c.patch.Spec.VolumeAttributesClassName != nil
	})
}

// holdsSlot reports whether the pod's claims are in progress or failed,
// which takes a maxUnavailable slot already (see storageBusy).
func (s podStorage) holdsSlot() bool {
	return s.progress() != "" || s.failure() != nil
}

func (s podStorage) done() bool {
	return !slices.ContainsFunc(s.claims, func(c claimCheck) bool { return !c.done() })
}

// claimsInPlace reports whether the set's claims follow its templates in
// place (volumeClaimUpdateStrategy InPlace).
func (p *planner) claimsInPlace() bool {
	return p.ext != nil && p.ext.ClaimUpdate == v1alpha1.InPlaceVolumeClaimUpdateStrategyType
}

// storageOf compares the claims of the pod in s with the update
// revision's templates. Missing claims are left to the replica pass,
// which creates them.
func (p *planner) storageOf(s slot) podStorage {
	out := podStorage{slot: s}
	templates := p.setAt(p.update, s.ordinal).Spec.VolumeClaimTemplates
	for i := range templates {
		tmpl := &templates[i]
		name := ClaimName(tmpl.Name, p.set.Name, s.ordinal)
		claim := p.in.Claims[name]
		if claim == nil || claim.DeletionTimestamp != nil {
			continue
		}
		out.claims = append(out.claims, checkClaim(name, claim, tmpl, p.update))
	}
	return out
}

// storageDone reports whether the InPlace claim update has nothing left
// to do for the pod in s; always so for a set whose claims do not follow
// its templates.
func (p *planner) storageDone(s slot) bool {
	return !p.claimsInPlace() || p.storageOf(s).done()
}

// storageRound returns, highest ordinal first (or in the priority rules'
// order), the pods at or above the partition that the InPlace update still
// has to handle: pods at an old revision, and pods at the update revision
// whose claims are not done.
func (p *planner) storageRound() []podStorage {
	var slots []slot
	for i := len(p.replicas) - 1; i >= 0 && p.partitionGoesOn(p.replicas[i].ordinal); i-- {
		s := p.replicas[i]
		if p.abovePartition(s.ordinal) && !isTerminating(s.pod) && !p.deleted[s.ordinal] {
			slots = append(slots, s)
		}
	}
	var out []podStorage
	for _, s := range p.prioritized(slots) {
		if st := p.storageOf(s); podRevision(s.pod) != p.update || !st.done() {
			out = append(out, st)
		}
	}
	return out
}

// storageBusy are the available pods whose claims are being resized or
// modified, or failed to be: each holds a maxUnavailable slot (and its
// domain's).
func (p *planner) storageBusy(round []podStorage) []slot {
	var out []slot
	for _, st := range round {
		if IsAvailable(st.slot.pod, p.set.Spec.MinReadySeconds, p.in.Now) && st.holdsSlot() {
			out = append(out, st.slot)
		}
	}
	return out
}

// claimPatches patches the pod's claims, one action each.
func (p *planner) claimPatches(st podStorage) []Action {
	var out []Action
	for _, c := range st.patches() {
		out = append(out, Action{Kind: UpdateClaimStorage, Ordinal: st.slot.ordinal, Claim: c.patch, FailEvent: EventFailedUpdate,
			Reason: fmt.Sprintf("InPlace claim update: claim %s of %s to revision %s%s", c.name, st.slot.pod.Name, p.update, patchWords(c))})
	}
	return out
}

func patchWords(c claimCheck) string {
	var parts []string
	if q, ok := storageOf(c.patch.Spec.Resources.Requests); ok {
		parts = append(parts, fmt.Sprintf("storage %s → %s", quantityOf(c.claim.Spec.Resources.Requests), q.String()))
	}
	if v := c.patch.Spec.VolumeAttributesClassName; v != nil {
		parts = append(parts, fmt.Sprintf("volumeAttributesClass %q → %s", deref(c.claim.Spec.VolumeAttributesClassName), *v))
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}

// onlyStorage reports whether the pod in s can move to the update
// revision without being recreated: it runs the current revision (any
// known one, for a set with overrides), whose pod template (the effective
// one of its ordinal) is the update revision's, and it mounts a claim of
// each of the update revision's templates and of no other.
func (p *planner) onlyStorage(s slot) bool {
	if podRevision(s.pod) != p.current && !p.hasOverrides() {
		return false
	}
	if from := p.templateAt(podRevision(s.pod), s.ordinal); from == nil || !apiequality.Semantic.DeepEqual(*from, *p.templateAt(p.update, s.ordinal)) {
		return false
	}
	mounted := map[string]bool{}
	for _, v := range s.pod.Spec.Volumes {
		if c := v.PersistentVolumeClaim; c != nil && c.ClaimName == ClaimName(v.Name, p.set.Name, s.ordinal) {
			mounted[v.Name] = true
		}
	}
	templates := p.updateSet.Spec.VolumeClaimTemplates
	if len(mounted) != len(templates) {
		return false
	}
	for _, t := range templates {
		if !mounted[t.Name] {
			return false
		}
	}
	return true
}

// moveRevision writes the update revision's label on a pod whose claims
// are done and whose pod template did not change.
func (p *planner) moveRevision(s slot) Action {
	moved := s.pod.DeepCopy()
	moved.Labels[appsv1.StatefulSetRevisionLabel] = p.update
	return Action{Kind: UpdatePod, Ordinal: s.ordinal, Pod: moved, EventReason: EventSuccessfulUpdate, FailEvent: EventFailedUpdate,
		Reason: fmt.Sprintf("InPlace claim update: only storage changed, so %s moves from %s to revision %s without a restart", s.pod.Name, podRevision(s.pod), p.update)}
}

func (p *planner) storageWait(s slot, why string) {
	p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf("InPlace claim update: %s %s", s.pod.Name, why), ""))
}

// storageBlock records a storage failure of the pod in s for
// status.blockedBy.
func (p *planner) storageBlock(s slot, f PodFailure) {
	f.Pod, f.Ordinal, f.Revision = s.pod.Name, s.ordinal, p.update
	f.Since = sinceOrLast(f.Since, p.ext.Last.LastProgress)
	p.blocks = append(p.blocks, block{PodFailure: f})
}

// expansionRefused stops the update before any claim is patched when a
// claim would grow in a StorageClass that does not allow expansion.
func (p *planner) expansionRefused(round []podStorage) bool {
	for _, st := range round {
		for _, c := range st.patches() {
			if !c.grow {
				continue
			}
			if class, ok := p.expandable(c.claim); !ok {
				msg := fmt.Sprintf("claim %s would grow to %s, but StorageClass %q does not allow volume expansion; set allowVolumeExpansion: true on the class, or put the template's storage request back to %s",
					c.name, quantityOf(c.patch.Spec.Resources.Requests), class, quantityOf(c.claim.Spec.Resources.Requests))
				p.warn(ReasonExpansionNotAllowed, "StorageClass/"+class, msg)
				p.storageBlock(st.slot, PodFailure{Reason: ReasonExpansionNotAllowed, Message: msg, Permanent: true})
				p.plan.Waits = append(p.plan.Waits, *p.waitOn(st.slot, "InPlace claim update: no claim is patched while one cannot grow", "Set allowVolumeExpansion: true on StorageClass "+class+", or lower the template's storage request."))
				return true
			}
		}
	}
	return false
}

// expandable returns the claim's StorageClass and whether it allows
// expansion. A claim without a class name gets the default class. Without
// StorageClasses (a controller of one namespace may not read them) the API
// server alone judges: it refuses to grow a claim whose class does not
// allow it, and the patch fails with its message.
func (p *planner) expandable(claim *corev1.PersistentVolumeClaim) (string, bool) {
	if p.in.Observed.StorageClasses == nil {
		return "", true
	}
	class := p.in.Observed.DefaultStorageClass
	if n := claim.Spec.StorageClassName; n != nil {
		class = *n
	}
	return class, class != "" && p.in.Observed.StorageClasses[class]
}

// reportShrinks warns once per claim whose template asks for less than it
// has: storage never shrinks, and the claim counts as matching.
func (p *planner) reportShrinks(round []podStorage) {
	for _, st := range round {
		for _, c := range st.claims {
			if c.shrink {
				capacity, _ := storageOf(c.claim.Status.Capacity)
				p.warn(ReasonShrinkRefused, "PersistentVolumeClaim/"+c.name, fmt.Sprintf(
					"the template asks for %s, less than the claim's %s; storage never shrinks, so the claim keeps %s",
					quantityOf(c.tmpl.Spec.Resources.Requests), capacity.String(), capacity.String()))
			}
		}
	}
}

// volumeClaims is status.volumeClaims: for each template of the update
// revision, the set's pods whose claim matches it, and how many of those
// are Ready.
func (p *planner) volumeClaims() []ClaimTemplateStatus {
	templates := p.updateSet.Spec.VolumeClaimTemplates
	if len(templates) == 0 {
		return nil
	}
	out := make([]ClaimTemplateStatus, len(templates))
	for i := range templates {
		out[i].Name = templates[i].Name
		for _, s := range p.replicas {
			tmpl := &p.setAt(p.update, s.ordinal).Spec.VolumeClaimTemplates[i]
			if !claimMatches(claimAt(p.in.Claims, tmpl.Name, p.set.Name, s.ordinal), tmpl) {
				continue
			}
			out[i].MatchingReplicas++
			if IsRunningAndReady(s.pod) {
				out[i].ReadyReplicas++
			}
		}
	}
	return out
}
