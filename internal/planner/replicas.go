package planner

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// outcome is what processing one pod contributes to the plan.
type outcome struct {
	actions []Action
	wait    *Wait
	// exit stops an OrderedReady pass at this pod.
	exit bool
	// halt stops every later pass, in both policies, where upstream would
	// return an error.
	halt bool
}

// MaxCreates bounds the missing pods one plan builds under Parallel. Upstream
// goes through every ordinal in one sync, so a scale-up to a million
// replicas builds a million pods in memory and holds the sync (and any
// change of the set, such as scaling back) until all are created. Here
// the replica pass stops after the slow-start batch in which it built
// its MaxCreates-th missing pod, like a sync cut short: the plan says
// Truncated, the later passes wait for a sync that gets through every
// pod, and the next sync carries on from there. A scale-up of up to
// MaxCreates pods (up to 1011 from none: ten full batches) is planned in
// one sync exactly as upstream plans it.
const MaxCreates = 1000

// createLimit is how many missing pods a Parallel replica pass builds
// before it stops at the end of the batch: MaxCreates, or the input's
// lower CreateLimit.
func (p *planner) createLimit() int {
	if l := p.in.CreateLimit; l > 0 && l < MaxCreates {
		return l
	}
	return MaxCreates
}

// replicaPass runs upstream's processReplica over the ordinal range and
// reports whether the later passes may run. OrderedReady processes pods in
// ordinal order and stops at the first one that is not healthy, so at most
// one pod is created per sync and never before its predecessors are
// Running, Ready and Available. Parallel processes every pod, each pod's
// actions in order (its claims before it), pods side by side in slow-start
// batches, and waits for none; like upstream it stops after a batch in
// which a pod failed, and it stops after the batch in which it reached
// MaxCreates (or Input.CreateLimit) missing pods.
func (p *planner) replicaPass() bool {
	units := make([][]Action, 0, len(p.replicas))
	exited, built, batchEnd, size := false, 0, 1, 1
	p.eachOrdinal(func(ord int32, observed *slot) bool {
		var out outcome
		if !p.scaleUpHeld(ord, observed) {
			if observed == nil {
				built++
			}
			out = p.processReplica(p.placeholderFor(ord, observed))
		}
		units = append(units, out.actions)
		if out.wait != nil {
			p.plan.Waits = append(p.plan.Waits, *out.wait)
		}
		p.halted = p.halted || out.halt
		if p.monotonic && (out.exit || out.halt) {
			exited = true
			return false
		}
		if p.monotonic || len(units) < batchEnd {
			return true
		}
		if built >= p.createLimit() && len(units) < int(p.layout.Len()) {
			p.plan.Truncated, exited = true, true
			return false
		}
		size = min(2*size, MaxBatch)
		batchEnd += size
		return true
	})
	p.addUnits(StepReplicas, units)
	p.scaleUpWait()
	return !exited && !p.halted
}

// processReplica decides for one pod in the range, in upstream's order:
// finished pods are deleted first, missing pods created, pending pods get
// their missing claims back, OrderedReady waits on unhealthy pods, and
// healthy pods have their identity, storage and claim retention repaired.
func (p *planner) processReplica(s slot) outcome {
	switch {
	case isFinished(s.pod):
		return p.replaceFinished(s)
	case s.placeholder:
		return p.createReplica(s)
	case !isCreated(s.pod):
		// An observed pod without a phase has just been created; creating it
		// again (as upstream does) can only fail with AlreadyExists.
		if !p.monotonic {
			return outcome{}
		}
		return outcome{exit: true, wait: p.replicaWait(s)}
	}
	var out outcome
	retained := false
	if s.pod.Status.Phase == corev1.PodPending {
		if out = p.restoreClaims(s); out.halt {
			return out
		}
		retained = true
	}
	if p.monotonic && !healthy(s.pod, p.set.Spec.MinReadySeconds, p.in.Now) {
		out.exit, out.wait = true, p.replicaWait(s)
		out.actions = append(out.actions, p.selfHeal(s)...)
		return out
	}
	repair := p.repair(s, !retained)
	repair.actions = append(out.actions, repair.actions...)
	return repair
}

// replaceFinished deletes a Failed or Succeeded pod. Its replacement is
// created by a later sync, once the pod is gone from the API (upstream
// #123809), so the new pod can never overlap the old one.
func (p *planner) replaceFinished(s slot) outcome {
	out := outcome{exit: true}
	if isTerminating(s.pod) {
		if p.monotonic {
			out.wait = p.waitOn(s, fmt.Sprintf("OrderedReady: %s is recreated once the %s pod is gone; later pods wait for it", s.pod.Name, s.pod.Status.Phase), "")
		}
		return out
	}
	p.deleted[s.ordinal] = true
	out.actions = []Action{{
		Kind: DeletePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventSuccessfulDelete, FailEvent: EventFailedDelete,
		Reason: fmt.Sprintf("%s is %s: delete it so that it is recreated", s.pod.Name, s.pod.Status.Phase),
	}}
	return out
}

// createReplica creates a missing pod after its missing claims, then sets
// the retention references of claims that already existed, as upstream's
// CreateStatefulPod does; a failure at any point is a FailedCreate, except
// the retention fix, which upstream reports as FailedUpdate.
func (p *planner) createReplica(s slot) outcome {
	if claim, stale := claimIsStale(p.set, s.pod, s.ordinal, p.in.Claims); stale {
		return outcome{exit: true, wait: p.waitOn(s,
			fmt.Sprintf("whenScaled Delete: claim %s still belongs to an earlier %s and must be garbage-collected before %s is created", claim, s.pod.Name, s.pod.Name),
			fmt.Sprintf("Check what holds claim %s (finalizers, the garbage collector).", claim))}
	}
	creates, blocked := p.claimCreates(s, EventFailedCreate)
	if blocked != "" {
		return p.claimBlocked(s, creates, blocked, EventFailedCreate)
	}
	create := Action{
		Kind: CreatePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventSuccessfulCreate, FailEvent: EventFailedCreate,
		Reason: fmt.Sprintf("%s is missing: create it at revision %s", s.pod.Name, podRevision(s.pod)), Config: liveWrites(s.pod),
	}
	fix := p.retentionUpdates(s, false, EventFailedUpdate)
	p.conflicts(fix)
	actions := append(creates, create)
	return outcome{exit: true, actions: append(actions, fix.actions...)}
}

// restoreClaims recreates claims deleted from under a Pending pod, which
// would otherwise stay Pending forever, and re-applies retention. Upstream
// reports a claim that cannot be created only as a claim event here.
func (p *planner) restoreClaims(s slot) outcome {
	creates, blocked := p.claimCreates(s, "")
	if blocked != "" {
		return p.claimBlocked(s, creates, blocked, "")
	}
	fix := p.retentionUpdates(s, false, EventFailedUpdate)
	p.conflicts(fix)
	return outcome{actions: append(creates, fix.actions...)}
}

// claimCreates returns the claims the pod needs that do not exist, in
// template order, and the name of a claim that blocks the pod because it is
// being deleted. failEvent is what the pod's unit records if one of them
// cannot be created.
func (p *planner) claimCreates(s slot, failEvent string) (creates []Action, blocked string) {
	templates := p.claimTemplatesAt(s.ordinal)
	for i := range templates {
		tmpl := &templates[i]
		switch claim := claimAt(p.in.Claims, tmpl.Name, p.set.Name, s.ordinal); {
		case claim == nil:
			creates = append(creates, Action{
				Kind: CreateClaim, Ordinal: s.ordinal, Claim: p.newClaim(tmpl, s.ordinal),
				EventReason: EventSuccessfulCreate, FailEvent: failEvent,
				Reason: fmt.Sprintf("claim %s for %s is missing", ClaimName(tmpl.Name, p.set.Name, s.ordinal), s.pod.Name),
			})
		case claim.DeletionTimestamp != nil && blocked == "":
			blocked = ClaimName(tmpl.Name, p.set.Name, s.ordinal)
		}
	}
	return creates, blocked
}

// newClaim is the claim of the pod at ordinal from tmpl; an extended set's
// also names the update revision, whose templates it was made from.
func (p *planner) newClaim(tmpl *corev1.PersistentVolumeClaim, ordinal int32) *corev1.PersistentVolumeClaim {
	claim := NewClaim(p.set, tmpl, ordinal)
	if p.ext != nil {
		if claim.Labels == nil {
			claim.Labels = map[string]string{}
		}
		claim.Labels[v1alpha1.ClaimRevisionLabel] = p.update
	}
	return claim
}

// claimBlocked is upstream's "pvc is being deleted" error: the other
// missing claims are still created, the pod is not created (or its claims
// not restored), the sync fails, and nothing after the pod runs.
func (p *planner) claimBlocked(s slot, creates []Action, claim, failEvent string) outcome {
	fail := Action{
		Kind: Fail, Ordinal: s.ordinal, Pod: s.pod, FailEvent: failEvent, Error: fmt.Sprintf("pvc %s is being deleted", claim),
		Reason: fmt.Sprintf("claim %s of %s is being deleted: the sync fails until it is gone", claim, s.pod.Name),
	}
	return outcome{actions: append(creates, fail), exit: true, halt: true, wait: p.waitOn(s,
		fmt.Sprintf("claim %s is being deleted; %s cannot use it until it is gone and recreated", claim, s.pod.Name),
		fmt.Sprintf("A claim stays Terminating while a pod uses it (pvc-protection); delete the pod using %s or remove what holds it.", claim))}
}

// repair is upstream's UpdateStatefulPod for a pod whose identity labels,
// storage or claim retention do not match the set: missing claims are
// created, retention references fixed and the identity labels written,
// reported as one pod update. Volumes are never written: the API server
// rejects any change to a pod's volumes, and upstream's attempt fails the
// sync on every pass and blocks every later pod; the mismatch is reported
// as a Warning instead and the pod keeps running until it is recreated.
func (p *planner) repair(s slot, withRetention bool) outcome {
	var out outcome
	identityOK := identityMatches(p.set, s.pod, s.ordinal)
	storageOK := storageMatches(p.set, s.pod, s.ordinal)
	if !storageOK {
		p.warn(ReasonStorageMismatch, "Pod/"+s.pod.Name, fmt.Sprintf(
			"the pod does not mount the claims of the set's volumeClaimTemplates (%s); pod volumes cannot change, so it keeps running without them until it is recreated: delete the pod to recreate it with them",
			strings.Join(templateNames(p.set), ", ")))
		creates, blocked := p.claimCreates(s, EventFailedUpdate)
		if blocked != "" {
			return p.claimBlocked(s, creates, blocked, EventFailedUpdate)
		}
		out.actions = creates
	}
	var fix claimFix
	if withRetention {
		fix = p.retentionUpdates(s, false, EventFailedUpdate)
	}
	if identityOK && storageOK && len(fix.actions) == 0 {
		return out
	}
	p.conflicts(fix)
	out.actions = append(out.actions, fix.actions...)
	if !identityOK {
		out.actions = append(out.actions, p.repairIdentity(s))
		// The repair of a name with leading zeros goes to the canonical
		// name, which no pod has (one that had it would hold the ordinal):
		// it fails every time, and like upstream the sync stops there.
		out.halt = out.halt || !IsPodName(s.pod.Name, p.set.Name, s.ordinal)
	}
	if n := len(out.actions); n > 0 && (!identityOK || len(fix.actions) > 0) {
		out.actions[n-1].EventReason = EventSuccessfulUpdate
	}
	return out
}

// repairIdentity writes the pod's identity labels. For a pod whose name is
// not the canonical one of its ordinal ("web-01"), upstream renames the
// copy it writes, so the write goes to web-1 and fails; so does this one.
func (p *planner) repairIdentity(s slot) Action {
	fixed := s.pod.DeepCopy()
	setIdentity(p.set, fixed, s.ordinal)
	return Action{Kind: UpdatePod, Ordinal: s.ordinal, Pod: fixed, FailEvent: EventFailedUpdate,
		Reason: fmt.Sprintf("%s identity labels do not match the set", s.pod.Name)}
}

// claimFix is what bringing a pod's claims in line with the retention
// policy takes, and the claims another controller owns.
type claimFix struct {
	actions []Action
	foreign []string
}

// retentionUpdates returns claim updates that make the pod's existing
// claims' owner references match the retention policy; failEvent is what
// the pod's unit records if one fails.
func (p *planner) retentionUpdates(s slot, condemned bool, failEvent string) claimFix {
	o := owners{set: p.set, kind: p.ownerKind(), pod: s.pod, condemned: condemned && !p.offline(s.ordinal)}
	var fix claimFix
	for i := range p.set.Spec.VolumeClaimTemplates {
		tmpl := &p.set.Spec.VolumeClaimTemplates[i]
		claim := claimAt(p.in.Claims, tmpl.Name, p.set.Name, s.ordinal)
		if claim == nil {
			continue
		}
		foreign, upToDate := o.foreignController(claim), o.claimUpToDate(claim)
		if !foreign && upToDate {
			continue
		}
		name := ClaimName(tmpl.Name, p.set.Name, s.ordinal)
		if foreign {
			fix.foreign = append(fix.foreign, name)
		}
		if upToDate {
			continue
		}
		reason := fmt.Sprintf("retention policy %s: owner references of claim %s", policyWords(p.set), name)
		if foreign {
			reason = fmt.Sprintf("claim %s is controlled by another owner: remove this set's owner references", name)
		}
		fix.actions = append(fix.actions, Action{Kind: UpdateClaim, Ordinal: s.ordinal, Claim: o.fixedClaim(claim), FailEvent: failEvent, Reason: reason})
	}
	return fix
}

// conflicts reports the claims of fix that another controller owns, in
// upstream's words, where upstream's retention update reports them: when a
// pod is created, while it is Pending, and when its claims or identity are
// repaired.
func (p *planner) conflicts(fix claimFix) {
	for _, name := range fix.foreign {
		p.plan.Warnings = append(p.plan.Warnings, Warning{
			Reason: ReasonConflictingController, Object: "PersistentVolumeClaim/" + name,
			Message: "the claim has a conflicting controller owner reference; the retention policy is ignored for it",
			Event:   fmt.Sprintf("PersistentVolumeClaim %s has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim", name),
		})
	}
}

func templateNames(set *appsv1.StatefulSet) []string {
	names := make([]string, 0, len(set.Spec.VolumeClaimTemplates))
	for _, t := range set.Spec.VolumeClaimTemplates {
		names = append(names, t.Name)
	}
	return names
}

func policyWords(set *appsv1.StatefulSet) string {
	whenDeleted, whenScaled := "Retain", "Retain"
	if p := set.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		whenDeleted, whenScaled = string(p.WhenDeleted), string(p.WhenScaled)
	}
	return fmt.Sprintf("whenDeleted %s, whenScaled %s", whenDeleted, whenScaled)
}
