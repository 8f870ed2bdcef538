package planner

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Action kinds of updates in place. Each carries the observed pod (name,
// namespace, UID) and Patch, a strategic merge patch.
const (
	// PatchPod patches the pod: images, labels and annotations.
	PatchPod Kind = "PatchPod"
	// ResizePod patches the pod's resize subresource: containers' cpu and
	// memory.
	ResizePod Kind = "ResizePod"
	// PatchPodStatus sets the controller's readiness gate condition.
	PatchPodStatus Kind = "PatchPodStatus"
)

// StepInPlace is the step that carries updates in place already under way
// and sets the readiness gate of pods that need it; it runs before the
// replica pass, which under OrderedReady stops at a pod whose gate is
// False.
const StepInPlace = "in place"

// Reasons of the in-place update, for status.blockedBy and warnings.
const (
	ReasonInPlaceImpossible   = "InPlaceImpossible"
	ReasonPodResizeInfeasible = "PodResizeInfeasible"
	ReasonPodResizeDeferred   = "PodResizeDeferred"
	// EventInPlaceUpdate is the Normal event of a pod updated in place.
	EventInPlaceUpdate = "SuccessfulInPlaceUpdate"
)

// podsInPlace reports whether the rolling update changes pods in place
// where it can (podUpdatePolicy InPlaceIfPossible or InPlaceOnly).
func (p *planner) podsInPlace() bool {
	return p.ext != nil && (p.ext.PodUpdate == v1alpha1.PodUpdateInPlaceIfPossible || p.ext.PodUpdate == v1alpha1.PodUpdateInPlaceOnly)
}

// addGate gives a pod the planner creates the controller's readiness gate,
// under an in-place policy or a postCreate hook (memberhooks.go).
func (p *planner) addGate(pod *corev1.Pod) {
	if p.podsInPlace() || p.memberHooks() {
		pod.Spec.ReadinessGates = append(pod.Spec.ReadinessGates, corev1.PodReadinessGate{ConditionType: v1alpha1.InPlaceReadinessGate})
	}
}

// gated reports whether pod has the controller's readiness gate.
func gated(pod *corev1.Pod) bool {
	for _, g := range pod.Spec.ReadinessGates {
		if g.ConditionType == v1alpha1.InPlaceReadinessGate {
			return true
		}
	}
	return false
}

func podCondition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == t {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// gateStatus is the pod's gate condition's status, "" when it has none.
func gateStatus(pod *corev1.Pod) corev1.ConditionStatus {
	if c := podCondition(pod, v1alpha1.InPlaceReadinessGate); c != nil {
		return c.Status
	}
	return ""
}

// inPlaceRecord is what v1alpha1.InPlaceUpdateAnnotation holds.
type inPlaceRecord struct {
	Revision string    `json:"revision"`
	Time     time.Time `json:"time"`
}

// recordOf is the revision the pod's spec was last changed to in place,
// "" when none or unreadable.
func recordOf(pod *corev1.Pod) inPlaceRecord {
	var r inPlaceRecord
	if v, ok := pod.Annotations[v1alpha1.InPlaceUpdateAnnotation]; ok {
		_ = json.Unmarshal([]byte(v), &r)
	}
	return r
}

// inPlaceProgress is where a pod changed in place stands.
type inPlaceProgress struct {
	// busy is the change still under way, in words; empty when done.
	busy string
	// failure is a resize the node will not make.
	failure *PodFailure
}

// progressOf judges a pod whose spec was changed in place to the revision
// it runs: the change is done once the kubelet has reported the pod's
// generation (so the status is about the new spec), no resize is pending
// or in progress, and its containers are Ready. A resize the node reports
// Infeasible fails at once; one it keeps Deferred fails after
// ResizeTimeout.
func (p *planner) progressOf(pod *corev1.Pod) inPlaceProgress {
	rec := recordOf(pod)
	if rec.Revision == "" || rec.Revision != podRevision(pod) {
		return inPlaceProgress{}
	}
	if pod.Status.ObservedGeneration < pod.Generation {
		return inPlaceProgress{busy: fmt.Sprintf("the kubelet has not yet acted on the change (generation %d, observed %d)", pod.Generation, pod.Status.ObservedGeneration)}
	}
	if c := podCondition(pod, corev1.PodResizePending); c != nil && c.Status == corev1.ConditionTrue {
		f := &PodFailure{Pod: pod.Name, Revision: podRevision(pod), Message: c.Message, Since: c.LastTransitionTime.Time, Permanent: true}
		switch {
		case c.Reason == corev1.PodReasonInfeasible:
			f.Reason = ReasonPodResizeInfeasible
			f.Message = "the node cannot give the new resources: " + c.Message
			return inPlaceProgress{busy: "resize Infeasible", failure: f}
		case p.in.Now.Sub(c.LastTransitionTime.Time) >= p.ext.ResizeTimeout:
			f.Reason = ReasonPodResizeDeferred
			f.Message = fmt.Sprintf("the node has deferred the resize for over %s: %s", p.ext.ResizeTimeout, c.Message)
			return inPlaceProgress{busy: "resize Deferred", failure: f}
		}
		p.requeueBy(c.LastTransitionTime.Add(p.ext.ResizeTimeout).Sub(p.in.Now))
		return inPlaceProgress{busy: "the node has deferred the resize: " + c.Message}
	}
	if c := podCondition(pod, corev1.PodResizeInProgress); c != nil && c.Status == corev1.ConditionTrue {
		return inPlaceProgress{busy: "resize in progress"}
	}
	if c := podCondition(pod, corev1.ContainersReady); c == nil || c.Status != corev1.ConditionTrue {
		return inPlaceProgress{busy: "its containers are not Ready yet"}
	}
	return inPlaceProgress{}
}

// inPlaceBusy reports whether an extended set's pod is taken out of
// service by an update in place: its gate False, or a change it has not
// finished. Such a pod counts as unavailable even while its Ready
// condition has not caught up yet.
func (p *planner) inPlaceBusy(pod *corev1.Pod) bool {
	if p.ext == nil || !isCreated(pod) {
		return false
	}
	return gateStatus(pod) == corev1.ConditionFalse || p.progressOf(pod).busy != "" || p.reloadBusy(pod)
}

// available is IsAvailable, and for an extended set not busy in place.
func (p *planner) available(pod *corev1.Pod) bool {
	return IsAvailable(pod, p.set.Spec.MinReadySeconds, p.in.Now) && !p.inPlaceBusy(pod)
}

// changeOf is what bringing the pod in s to the update revision takes.
// It depends only on the pod's revision and the overrides of its ordinal
// there and at the update revision (groupKey), so each is worked out once
// per plan, not once per pod.
func (p *planner) changeOf(s slot) templateChange {
	rev := podRevision(s.pod)
	key := p.groupKey(rev, s.ordinal)
	if c, ok := p.changes[key]; ok {
		return c
	}
	var c templateChange
	if from := p.templateAt(rev, s.ordinal); from != nil {
		c = diffTemplates(from, p.templateAt(p.update, s.ordinal))
	} else {
		c = templateChange{impossible: []string{fmt.Sprintf("its revision %q is not one of the set's", rev)}}
	}
	if p.changes == nil {
		p.changes = map[string]templateChange{}
	}
	p.changes[key] = c
	return c
}

// inPlaceRolls reports whether the rolling update would change the
// outdated pod in s in place now: the set updates in place, is not paused
// or OnDelete, and s is at or above the partition.
func (p *planner) inPlaceRolls(s slot) bool {
	return p.podsInPlace() && !p.ext.Recreate && p.set.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType &&
		p.rollingReplaces(s.ordinal) && podRevision(s.pod) != p.update
}

// inPlacePass runs first for an extended set. For each of its pods:
//   - a pod whose gate the rolling update turned False carries on with its
//     update (grace period, then the change);
//   - a pod changed in place whose resize the node will not make is
//     recreated (InPlaceIfPossible) or holds the rollout (InPlaceOnly);
//   - a gated pod whose gate is not True, and that is not being changed,
//     gets it True: a new pod at once, a changed one when done.
func (p *planner) inPlacePass() {
	if p.ext == nil {
		return
	}
	var actions []Action
	for _, s := range p.replicas {
		if isTerminating(s.pod) || !isCreated(s.pod) {
			continue
		}
		gate := gateStatus(s.pod)
		if gate == corev1.ConditionFalse && p.inPlaceRolls(s) && !p.unordered {
			c := p.changeOf(s)
			if len(c.impossible) == 0 {
				p.touched(s)
				actions = append(actions, p.hooked(s, needUpdate, func() []Action { return p.changeInPlace(s, c) })...)
				continue
			}
		}
		prog := p.progressOf(s.pod)
		switch {
		case prog.failure != nil && p.ext.PodUpdate == v1alpha1.PodUpdateInPlaceOnly:
			p.inPlaceBlock(s, *prog.failure)
		case prog.failure != nil:
			actions = append(actions, p.hooked(s, needDelete, func() []Action {
				p.deleted[s.ordinal] = true
				return []Action{{Kind: DeletePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventSuccessfulDelete, FailEvent: EventFailedDelete,
					Reason: fmt.Sprintf("in-place update: %s; InPlaceIfPossible recreates %s at revision %s", prog.failure.Message, s.pod.Name, podRevision(s.pod))}}
			})...)
		case prog.busy != "":
			p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf("in-place update: %s is changed to revision %s; %s", s.pod.Name, podRevision(s.pod), prog.busy), ""))
		case gated(s.pod) && gate != corev1.ConditionTrue:
			actions = append(actions, p.memberJoin(s)...)
		}
	}
	p.addStep(StepInPlace, actions)
}

// touched marks the pod in s as handled by this plan.
func (p *planner) touched(s slot) {
	if p.changed == nil {
		p.changed = map[int32]bool{}
	}
	p.changed[s.ordinal] = true
}

// inPlaceBlock records why the pod in s holds an InPlaceOnly rollout.
func (p *planner) inPlaceBlock(s slot, f PodFailure) {
	f.Pod, f.Ordinal = s.pod.Name, s.ordinal
	if f.Revision == "" {
		f.Revision = p.update
	}
	f.Since = sinceOrLast(f.Since, p.ext.Last.LastProgress)
	f.Permanent = true
	p.blocks = append(p.blocks, block{PodFailure: f})
	p.warn(f.Reason, "Pod/"+s.pod.Name, f.Message)
	p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, "InPlaceOnly: "+f.Message,
		"Change the template back to what can be changed in place, or set podUpdatePolicy to InPlaceIfPossible so that such a pod is recreated."))
}

// updateOne brings the outdated pod in s to the update revision under an
// in-place policy: in place when the change allows it, by recreating it
// otherwise (InPlaceIfPossible), or not at all (InPlaceOnly, which stops
// the round). A change of metadata alone disturbs nothing and goes
// through no gate; any other takes the pod out of service and needs the
// round's gates to admit it, unless the pod is unavailable already
// (free).
func (p *planner) updateOne(s slot, free bool, r *round) (actions []Action, stop bool) {
	if p.reloadsTo(s, p.update) {
		if !free && !p.admit(r, outOfService, s) {
			return nil, false
		}
		return p.reloadStart(s, p.update, ""), false
	}
	c := p.changeOf(s)
	disturbs := len(c.impossible) > 0 || c.spec()
	switch {
	case len(c.impossible) > 0 && p.ext.PodUpdate == v1alpha1.PodUpdateInPlaceOnly:
		p.inPlaceBlock(s, PodFailure{Reason: ReasonInPlaceImpossible, Revision: podRevision(s.pod),
			Message: fmt.Sprintf("%s cannot be updated to revision %s in place: %s", s.pod.Name, p.update, strings.Join(c.impossible, "; "))})
		return nil, true
	case !free && disturbs && !p.admit(r, outOfService, s):
		return nil, false
	case len(c.impossible) > 0:
		return p.rollingDelete(s, "not updatable in place ("+strings.Join(c.impossible, "; ")+")"), false
	}
	p.touched(s)
	if !c.spec() {
		return []Action{p.patchAction(s, c, "")}, false
	}
	return p.hooked(s, needUpdate, func() []Action { return p.changeInPlace(s, c) }), false
}

// inTurnUpdateOne is updateOne once the round's turners let a pod whose
// change takes it out of service have its turn.
func (p *planner) inTurnUpdateOne(r *round, s slot) ([]Action, bool) {
	free := !p.available(s.pod)
	if c := p.changeOf(s); !free && (len(c.impossible) > 0 || c.spec()) && !r.inTurn(p, s) {
		return nil, false
	}
	return p.updateOne(s, free, r)
}

// changeInPlace takes the pod in s through a change of its spec: its gate
// False first, when it has one; then, once the kubelet has taken it out of
// service (not Ready) and the grace period has passed, the resize and the
// patch that moves it to the update revision.
func (p *planner) changeInPlace(s slot, c templateChange) []Action {
	if gated(s.pod) {
		gate := podCondition(s.pod, v1alpha1.InPlaceReadinessGate)
		if gate == nil || gate.Status != corev1.ConditionFalse {
			return []Action{p.setGate(s, corev1.ConditionFalse, "updating in place to revision "+p.update)}
		}
		if IsRunningAndReady(s.pod) {
			p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf("in-place update: %s waits for the kubelet to report it not Ready, which takes it out of its Services' endpoints", s.pod.Name), ""))
			return nil
		}
		if left := gate.LastTransitionTime.Add(p.ext.InPlaceGrace).Sub(p.in.Now); left > 0 {
			p.requeueBy(left)
			p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf("in-place update: %s is out of its Services' endpoints; it is changed when the grace period of %s ends", s.pod.Name, p.ext.InPlaceGrace), ""))
			return nil
		}
	}
	var out []Action
	if len(c.resources) > 0 {
		patch, _ := resizePatch(c)
		out = append(out, Action{Kind: ResizePod, Ordinal: s.ordinal, Pod: s.pod, Patch: patch, FailEvent: EventFailedUpdate,
			Reason: fmt.Sprintf("in-place update: resize %s to revision %s (%s)", s.pod.Name, p.update, strings.Join(slices.Sorted(maps.Keys(c.resources)), ", "))})
	}
	rec, _ := json.Marshal(inPlaceRecord{Revision: p.update, Time: p.in.Now.UTC().Truncate(time.Second)})
	return append(out, p.patchAction(s, c, string(rec)))
}

// patchAction moves the pod in s to the update revision in place.
func (p *planner) patchAction(s slot, c templateChange, record string) Action {
	patch, _ := inPlacePatch(s.pod, c, p.update, record)
	what := "labels and annotations"
	if len(c.images) > 0 {
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(c.images)) {
			parts = append(parts, name+"="+c.images[name])
		}
		what = "image " + strings.Join(parts, ", ")
	} else if len(c.resources) > 0 {
		what = "resources"
	}
	return Action{Kind: PatchPod, Ordinal: s.ordinal, Pod: s.pod, Patch: patch, EventReason: EventInPlaceUpdate, FailEvent: EventFailedUpdate,
		Reason: fmt.Sprintf("in-place update: %s from %s to revision %s (%s), without a restart of the pod", s.pod.Name, podRevision(s.pod), p.update, what)}
}

// setGate writes the pod's readiness gate condition.
func (p *planner) setGate(s slot, status corev1.ConditionStatus, why string) Action {
	cond := corev1.PodCondition{Type: v1alpha1.InPlaceReadinessGate, Status: status, Reason: "InPlaceUpdate", Message: why,
		LastTransitionTime: metav1.NewTime(p.in.Now.UTC().Truncate(time.Second))}
	if status == corev1.ConditionTrue {
		cond.Reason = "Ready"
	}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.PodCondition{cond}}})
	return Action{Kind: PatchPodStatus, Ordinal: s.ordinal, Pod: s.pod, Patch: patch, FailEvent: EventFailedUpdate,
		Reason: fmt.Sprintf("readiness gate %s of %s: %s (%s)", v1alpha1.InPlaceReadinessGate, s.pod.Name, status, why)}
}
