package planner

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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

// replicaPass runs upstream's processReplica over the ordinal range and
// reports whether the later passes may run. OrderedReady processes pods in
// ordinal order and stops at the first one that is not healthy, so at most
// one pod is created per sync and never before its predecessors are
// Running, Ready and Available. Parallel processes every pod and waits for
// none.
func (p *planner) replicaPass() bool {
	var actions []Action
	exited := false
	for _, s := range p.replicas {
		out := p.processReplica(s)
		actions = append(actions, out.actions...)
		if out.wait != nil {
			p.plan.Waits = append(p.plan.Waits, *out.wait)
		}
		p.halted = p.halted || out.halt
		if p.monotonic && (out.exit || out.halt) {
			exited = true
			break
		}
	}
	p.addReplicaSteps(actions)
	return !exited && !p.halted
}

// addReplicaSteps orders the pass's actions into steps. OrderedReady keeps
// one sequential step, because what happens to one pod depends on the pods
// before it. Parallel groups actions by kind so each group can burst, and so
// a pod's claims exist before the pod and its retention references are set
// after it.
func (p *planner) addReplicaSteps(actions []Action) {
	if p.monotonic {
		p.addStep(StepReplicas, false, actions)
		return
	}
	byKind := map[Kind][]Action{}
	for _, a := range actions {
		byKind[a.Kind] = append(byKind[a.Kind], a)
	}
	p.addStep(StepDeleteFailed, true, byKind[DeletePod])
	p.addStep(StepCreateClaims, true, byKind[CreateClaim])
	p.addStep(StepCreatePods, true, byKind[CreatePod])
	p.addStep(StepUpdateClaims, true, byKind[UpdateClaim])
	p.addStep(StepUpdatePods, true, byKind[UpdatePod])
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
		Kind: DeletePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventSuccessfulDelete,
		Reason: fmt.Sprintf("%s is %s: delete it so that it is recreated", s.pod.Name, s.pod.Status.Phase),
	}}
	return out
}

// createReplica creates a missing pod after its missing claims, then sets
// the retention references of claims that already existed.
func (p *planner) createReplica(s slot) outcome {
	if claim, stale := claimIsStale(p.set, s.pod, s.ordinal, p.in.Claims); stale {
		return outcome{exit: true, wait: p.waitOn(s,
			fmt.Sprintf("whenScaled Delete: claim %s still belongs to an earlier %s and must be garbage-collected before %s is created", claim, s.pod.Name, s.pod.Name),
			fmt.Sprintf("Check what holds claim %s (finalizers, the garbage collector).", claim))}
	}
	creates, blocked := p.claimCreates(s)
	if blocked != "" {
		return p.claimBlocked(s, creates, blocked)
	}
	create := Action{
		Kind: CreatePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventSuccessfulCreate,
		Reason: fmt.Sprintf("%s is missing: create it at revision %s", s.pod.Name, podRevision(s.pod)),
	}
	actions := append(creates, create)
	return outcome{exit: true, actions: append(actions, p.retentionUpdates(s, false)...)}
}

// restoreClaims recreates claims deleted from under a Pending pod, which
// would otherwise stay Pending forever, and re-applies retention.
func (p *planner) restoreClaims(s slot) outcome {
	creates, blocked := p.claimCreates(s)
	if blocked != "" {
		return p.claimBlocked(s, creates, blocked)
	}
	return outcome{actions: append(creates, p.retentionUpdates(s, false)...)}
}

// claimCreates returns the claims the pod needs that do not exist, in
// template order, and the name of a claim that blocks the pod because it is
// being deleted.
func (p *planner) claimCreates(s slot) (creates []Action, blocked string) {
	for i := range p.set.Spec.VolumeClaimTemplates {
		tmpl := &p.set.Spec.VolumeClaimTemplates[i]
		name := ClaimName(tmpl.Name, p.set.Name, s.ordinal)
		switch claim := p.in.Claims[name]; {
		case claim == nil:
			creates = append(creates, Action{
				Kind: CreateClaim, Ordinal: s.ordinal, Claim: NewClaim(p.set, tmpl, s.ordinal),
				EventReason: EventSuccessfulCreate, Reason: fmt.Sprintf("claim %s for %s is missing", name, s.pod.Name),
			})
		case claim.DeletionTimestamp != nil && blocked == "":
			blocked = name
		}
	}
	return creates, blocked
}

// claimBlocked is upstream's "pvc is being deleted" error: the pod is not
// created (or its claims not restored), and nothing after it runs.
func (p *planner) claimBlocked(s slot, creates []Action, claim string) outcome {
	return outcome{actions: creates, exit: true, halt: true, wait: p.waitOn(s,
		fmt.Sprintf("claim %s is being deleted; %s cannot use it until it is gone and recreated", claim, s.pod.Name),
		fmt.Sprintf("A claim stays Terminating while a pod uses it (pvc-protection); delete the pod using %s or remove what holds it.", claim))}
}

// repair brings an observed pod's identity labels and claim volumes back in
// line and fixes its claims' retention references. A pod update is issued
// only when the pod itself changes; upstream also sends a no-op pod update
// when only claims needed fixing.
func (p *planner) repair(s slot, withRetention bool) outcome {
	var out outcome
	identityOK := identityMatches(p.set, s.pod)
	storageOK := storageMatches(p.set, s.pod, s.ordinal)
	if !storageOK {
		creates, blocked := p.claimCreates(s)
		if blocked != "" {
			return p.claimBlocked(s, creates, blocked)
		}
		out.actions = creates
	}
	if withRetention {
		out.actions = append(out.actions, p.retentionUpdates(s, false)...)
	}
	if identityOK && storageOK {
		return out
	}
	out.actions = append(out.actions, p.repairPod(s, identityOK, storageOK))
	return out
}

func (p *planner) repairPod(s slot, identityOK, storageOK bool) Action {
	fixed := s.pod.DeepCopy()
	reason := fmt.Sprintf("%s identity labels do not match the set", s.pod.Name)
	setIdentity(p.set, fixed, s.ordinal)
	if !storageOK {
		setStorage(p.set, fixed, s.ordinal)
		reason = fmt.Sprintf("%s volumes do not mount its claims", s.pod.Name)
		p.warn(ReasonStorageMismatch, "Pod/"+s.pod.Name,
			"the pod's volumes do not mount the claims of the set's volumeClaimTemplates; the API server rejects changes to pod volumes, so delete the pod to recreate it")
	}
	if !identityOK && !storageOK {
		reason = fmt.Sprintf("%s identity labels and volumes do not match the set", s.pod.Name)
	}
	return Action{Kind: UpdatePod, Ordinal: s.ordinal, Pod: fixed, EventReason: EventSuccessfulUpdate, Reason: reason}
}

// retentionUpdates returns claim updates that make the pod's existing
// claims' owner references match the retention policy.
func (p *planner) retentionUpdates(s slot, condemned bool) []Action {
	o := owners{set: p.set, pod: s.pod, condemned: condemned}
	var actions []Action
	for _, tmpl := range p.set.Spec.VolumeClaimTemplates {
		name := ClaimName(tmpl.Name, p.set.Name, s.ordinal)
		claim := p.in.Claims[name]
		if claim == nil {
			continue
		}
		// Warn whenever the policy cannot apply, not only when our own
		// references must be scrubbed (upstream's only case): the user
		// asked for deletion and will not get it for this claim.
		foreign := o.foreignController(claim)
		if foreign {
			p.warn(ReasonConflictingController, "PersistentVolumeClaim/"+name,
				"the claim has a conflicting controller owner reference; the retention policy is ignored for it")
		}
		if o.claimUpToDate(claim) {
			continue
		}
		reason := fmt.Sprintf("retention policy %s: owner references of claim %s", policyWords(p.set), name)
		if foreign {
			reason = fmt.Sprintf("claim %s is controlled by another owner: remove this set's owner references", name)
		}
		actions = append(actions, Action{Kind: UpdateClaim, Ordinal: s.ordinal, Claim: o.fixedClaim(claim), Reason: reason})
	}
	return actions
}

func policyWords(set *appsv1.StatefulSet) string {
	whenDeleted, whenScaled := "Retain", "Retain"
	if p := set.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		whenDeleted, whenScaled = string(p.WhenDeleted), string(p.WhenScaled)
	}
	return fmt.Sprintf("whenDeleted %s, whenScaled %s", whenDeleted, whenScaled)
}
