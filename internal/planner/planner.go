package planner

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/ordinal-sh/ordinal/internal/revision"
)

// slot is one pod the plan reasons about, observed or not yet created.
type slot struct {
	ordinal int32
	pod     *corev1.Pod
	// placeholder marks a pod the planner built for a missing ordinal.
	placeholder bool
}

// planner holds one Compute call's working state.
type planner struct {
	in                    Input
	ext                   *Extended // nil for apps/v1
	set                   *appsv1.StatefulSet
	current, update       string
	currentSet, updateSet *appsv1.StatefulSet
	start                 int32
	// layout is the set's ordinals, and replicas the observed pods at
	// them, in ordinal order. An ordinal without a pod has no slot: its
	// pod is built only by a pass that acts on it (placeholder), so a
	// plan's cost follows the pods that exist, not spec.replicas.
	layout    Layout
	replicas  []slot
	condemned []slot // highest ordinal first
	monotonic bool
	plan      Plan
	// halted records a condition upstream meets as an error (a claim being
	// deleted under a pod it must create): no later pass runs.
	halted bool
	// deleted are the ordinals whose pod this plan already deletes.
	deleted map[int32]bool
	// currentDeletes counts rolling deletions of pods at the current
	// revision, which status.currentReplicas no longer includes.
	currentDeletes int32
	// requestedDeletes counts available pods this plan deletes because a
	// user asked to (extended sets only); they use up maxUnavailable.
	requestedDeletes int
	// weigher weighs pods by the extended kind's priority rules, and
	// unordered is true when one of them cannot be read.
	weigher   weigher
	unordered bool
	// blocks are the pods whose claims hold the InPlace claim update up,
	// that an in-place pod update cannot get past, or that wait on a
	// lifecycle hook, for status.blockedBy.
	blocks []block
	// atPartition is true when an extended set's rolling update has done
	// all its partition allows (partitionReached).
	atPartition bool
	// changed are the ordinals whose pod this plan changes in place, and
	// changes the change to the update revision from each revision pods
	// run (changeOf).
	changed map[int32]bool
	changes map[string]templateChange
	// reloadShapes says, by groupKey and target revision, why a pod
	// cannot reload to it, "" when it can (reload.go).
	reloadShapes map[string]string
	// overrides are the overrides of the revisions the plan reads, by
	// revision name, with the effective sets built from them
	// (overrides.go); nil for an apps/v1 set.
	overrides map[string]*revisionOverrides
	// same says, by groupKey, whether the effective templates are equal.
	same map[string]bool
	// hooking are the ordinals whose pod waits on a lifecycle hook in this
	// plan (hooks.go).
	hooking map[int32]bool
	// roles is what the plan knows of an extended set's roles (roles.go),
	// built on first use.
	roles *roleView
	// kept are the ordinals a Count partition keeps at the current
	// revision (partitioncount.go); nil for an Ordinal partition.
	kept map[int32]bool
	// recreateProgress is the Progressing condition an apps/v1 Recreate update
	// sets (recreate.go); nil leaves it as it is.
	recreateProgress *appsv1.StatefulSetCondition
	// scaleUp counts a Parallel scale-up held to
	// Extended.ScaleUpMaxUnavailable (scaleup.go).
	scaleUp scaleUp
	// hold is the failure policy's hold in force, whose revision the plan
	// targets (hold.go); nil without one. holdPaused is true when it
	// pauses the rollout.
	hold       *Hold
	holdPaused bool
}

// block is a pod a pass holds up. status.blockedBy lists it when it is
// permanent, once it has lasted the progress deadline, or at once when
// listed is set (a wait the user is expected to act on, such as a
// lifecycle hook).
type block struct {
	PodFailure
	listed bool
}

// requeueBy makes the plan's RequeueAfter no later than d (zero: no
// change).
func (p *planner) requeueBy(d time.Duration) {
	if d > 0 && (p.plan.RequeueAfter == 0 || d < p.plan.RequeueAfter) {
		p.plan.RequeueAfter = d
	}
}

// recreateAllowed reports whether the plan may go past its revisions: not
// for an apps/v1 set of type Recreate while the controller's
// StatefulSetRecreateStrategy gate is off. Upstream then records its
// Warning on every sync, touches no pod and writes no status; here the
// Warning is recorded once while it lasts, and the set is not retried
// until it changes.
func (p *planner) recreateAllowed() bool {
	if p.ext != nil || p.set.Spec.UpdateStrategy.Type != appsv1.RecreateStatefulSetStrategyType || !p.in.Release.RecreateGateOff {
		return true
	}
	p.plan.Warnings = append(p.plan.Warnings, Warning{Reason: ReasonUnknownStrategy, Object: "StatefulSet/" + p.set.Name,
		Message: "the StatefulSetRecreateStrategy feature gate is off: no pod is created, deleted or updated and no status is written until it is on or the type changes",
		Event:   fmt.Sprintf("statefulset %s/%s uses Recreate strategy but feature gate StatefulSetRecreateStrategy is disabled", p.set.Namespace, p.set.Name)})
	p.plan.KeepStatus = true
	return false
}

// checkStrategy warns about an update strategy type a newer API server
// may admit and this controller does not know. Upstream would run its
// rolling update on such a set, which is not what the set asked for; here
// its pods are not replaced for updates, while scaling and status go on.
func (p *planner) checkStrategy() {
	if p.ext != nil {
		return // the extended kind's schema admits only the types it implements
	}
	switch t := p.set.Spec.UpdateStrategy.Type; t {
	case appsv1.RollingUpdateStatefulSetStrategyType, appsv1.OnDeleteStatefulSetStrategyType, appsv1.RecreateStatefulSetStrategyType, "":
	default:
		p.warn(ReasonUnknownUpdateStrategy, "StatefulSet/"+p.set.Name, fmt.Sprintf(
			"updateStrategy.type %q is not one this controller implements (RollingUpdate, OnDelete, Recreate); pods are not replaced for updates, while scaling and status go on", t))
	}
}

// resolveRevisions applies the current and update revisions to the set;
// the update revision is a hold's while one is in force (hold.go). A
// missing or corrupt revision leaves the plan without steps: pods cannot be
// built without their template.
func (p *planner) resolveRevisions() bool {
	cur, upd := p.in.Current, p.holdTarget(p.in.Update)
	if upd == nil {
		upd = cur
	}
	if cur == nil {
		cur = upd
	}
	if upd == nil {
		p.warn(ReasonMissingRevision, "StatefulSet/"+p.set.Name, "no current or update revision was resolved; nothing is planned")
		return false
	}
	p.current, p.update = cur.Name, upd.Name
	var err error
	if p.updateSet, err = p.apply(upd); err == nil {
		// In steady state both revisions are one: apply it once.
		p.currentSet = p.updateSet
		if cur.Name != upd.Name {
			p.currentSet, err = p.apply(cur)
		}
	}
	if err != nil {
		p.warn(ReasonInvalidRevision, "StatefulSet/"+p.set.Name, err.Error()+"; nothing is planned")
		return false
	}
	return p.readOverrides(cur, upd)
}

// apply is the set with rev's template: Input.Apply's, or
// revision.Apply's.
func (p *planner) apply(rev *appsv1.ControllerRevision) (*appsv1.StatefulSet, error) {
	if p.in.Apply != nil {
		return p.in.Apply(p.set, rev)
	}
	return revision.Apply(p.set, rev)
}

// sortPods places observed pods in the ordinal range or among the
// condemned, and reports pods whose names do not belong to the set.
func (p *planner) sortPods() {
	p.start = StartOrdinal(p.set)
	count := Replicas(p.set)
	p.layout = NewLayout(p.start, count, p.reservations())
	if n := p.layout.Len(); n < count && len(p.reservations()) > 0 {
		p.warn(ReasonOrdinalOverflow, "StatefulSet/"+p.set.Name, fmt.Sprintf(
			"ordinals above %d cannot be named; with the reserved ordinals only %d replicas are managed", math.MaxInt32, n))
	} else if n < count {
		p.warn(ReasonOrdinalOverflow, "StatefulSet/"+p.set.Name, fmt.Sprintf("ordinals above %d cannot be named; only %d replicas are managed", math.MaxInt32, n))
	}
	p.layout = p.withoutOffline(p.layout)
	names := podNames{placed: make(map[int32]int, len(p.in.Pods))}
	p.replicas = make([]slot, 0, len(p.in.Pods))
	for _, pod := range p.in.Pods {
		if pod == nil {
			continue
		}
		ord, ok := ParseOrdinal(p.set.Name, pod.Name)
		switch i, held := names.placed[ord]; {
		case names.seen(p.replicas, pod.Name, ord, ok):
			p.warn(ReasonDuplicatePod, "Pod/"+pod.Name, "the pod was listed twice; the second copy is ignored")
		case !ok:
			names.add(pod.Name)
			p.warn(ReasonUnparsableName, "Pod/"+pod.Name, fmt.Sprintf("the name is not %s-<ordinal>; the pod is ignored", p.set.Name))
		case held:
			names.add(p.place(&p.replicas[i], slot{ordinal: ord, pod: pod}))
		case p.inRange(ord):
			names.placed[ord] = len(p.replicas)
			p.replicas = append(p.replicas, slot{ordinal: ord, pod: pod})
		default:
			names.add(pod.Name)
			p.condemned = append(p.condemned, slot{ordinal: ord, pod: pod})
		}
	}
	slices.SortFunc(p.replicas, func(a, b slot) int { return cmp.Compare(a.ordinal, b.ordinal) })
	slices.SortFunc(p.condemned, func(a, b slot) int { return cmp.Compare(b.ordinal, a.ordinal) })
}

// podNames are the pod names sortPods has seen, so that a pod listed twice
// is ignored the second time. The name of a pod holding an ordinal's place
// is found through placed, and only the others (condemned, ignored,
// unparsable) are kept by name: a set's thousand pods cost no map of
// their names.
type podNames struct {
	// placed is the index in replicas of the pod holding each ordinal.
	placed map[int32]int
	others map[string]bool
}

// seen reports whether name was seen; ord and ok are what ParseOrdinal
// read from it.
func (n *podNames) seen(replicas []slot, name string, ord int32, ok bool) bool {
	if i, held := n.placed[ord]; ok && held && replicas[i].pod.Name == name {
		return true
	}
	return n.others[name]
}

func (n *podNames) add(name string) {
	if n.others == nil {
		n.others = map[string]bool{}
	}
	n.others[name] = true
}

// place puts s in the ordinal's place and returns the name of the pod
// ignored. Two pods can claim one ordinal only when one name has leading
// zeros ("web-01" and "web-1"); upstream keeps whichever its cache lists
// last, so which one it keeps is a matter of chance, and here the pod with
// the canonical name keeps the place. The other is ignored, as upstream
// ignores it.
func (p *planner) place(at *slot, s slot) string {
	if IsPodName(at.pod.Name, p.set.Name, at.ordinal) {
		p.warn(ReasonDuplicatePod, "Pod/"+s.pod.Name, fmt.Sprintf("the name also reads as ordinal %d, which %s holds; the pod is ignored", s.ordinal, at.pod.Name))
		return s.pod.Name
	}
	p.warn(ReasonDuplicatePod, "Pod/"+at.pod.Name, fmt.Sprintf("the name also reads as ordinal %d, which %s holds; the pod is ignored", s.ordinal, s.pod.Name))
	ignored := at.pod.Name
	*at = s
	return ignored
}

// placeholder builds the pod a missing ordinal should get. Upstream's
// newVersionedStatefulSetPod rule decides the revision: below the
// partition (counted from the start ordinal) a pod is recreated at the
// current revision. With type RollingUpdate but no rollingUpdate block,
// upstream compares with status.currentReplicas instead, a quirk kept
// here. Only the passes that act on a missing ordinal build its pod.
func (p *planner) placeholder(ord int32) slot {
	pod := newPod(p.setAt(p.update, ord), p.ownerKind(), p.update, ord)
	if p.recreateAtCurrent(ord) {
		pod = newPod(p.setAt(p.current, ord), p.ownerKind(), p.current, ord)
	}
	p.addGate(pod)
	p.reloadVolumes(pod)
	return slot{ordinal: ord, pod: pod, placeholder: true}
}

// placeholderFor is the observed pod's slot, or for a missing ordinal
// (observed nil) its placeholder.
func (p *planner) placeholderFor(ord int32, observed *slot) slot {
	if observed != nil {
		return *observed
	}
	return p.placeholder(ord)
}

func (p *planner) recreateAtCurrent(ord int32) bool {
	if p.paused() {
		return true
	}
	strategy := p.set.Spec.UpdateStrategy
	if strategy.RollingUpdate == nil {
		// Upstream's quirk keeps ordinals below status.currentReplicas at
		// the current revision so a one-at-a-time update reaches them in
		// order, under Parallel too.
		return strategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
			int64(ord) < int64(p.start)+int64(p.set.Status.CurrentReplicas)
	}
	if p.countPartition() {
		return p.kept[ord]
	}
	return int64(ord) < int64(p.start)+int64(p.partition())
}

// checkNames warns about names the API server will reject when a pod is
// created: label values and hostnames are limited to 63 characters, which
// upstream never checks (#64023), so its pods fail to create without a word.
func (p *planner) checkNames() {
	for _, name := range slices.Compact([]string{p.update, p.current}) {
		if len(name) > validation.LabelValueMaxLength {
			p.warn(ReasonRevisionLabelTooLong, "ControllerRevision/"+name, fmt.Sprintf(
				"the revision name is %d characters, over the 63 allowed in the %s label; pods cannot be created (shorten the set name to at most 52 characters)",
				len(name), appsv1.StatefulSetRevisionLabel))
		}
	}
	if ord, ok := p.layout.Last(); ok {
		if last := PodName(p.set.Name, ord); len(last) > validation.DNS1123LabelMaxLength {
			p.warn(ReasonPodNameTooLong, "Pod/"+last, "the pod name is over 63 characters, the limit for its hostname and pod-name label; the pod cannot be created")
		}
	}
}

func (p *planner) warn(reason, object, message string) {
	p.plan.Warnings = append(p.plan.Warnings, Warning{Reason: reason, Object: object, Message: message})
}

// ownerKind is the kind that owns the set's pods and claims.
func (p *planner) ownerKind() schema.GroupVersionKind {
	if p.ext != nil && !p.ext.Owner.Empty() {
		return p.ext.Owner
	}
	return setKind
}

// replicaCount is spec.replicas, 1 when unset, never negative.
func (p *planner) replicaCount() int32 { return Replicas(p.set) }

// partition is the set's partition, counted from the start ordinal: every
// ordinal while an extended set is paused, so that no pod is replaced for
// an update and a missing one comes back at the current revision.
// Reserved ordinals do not change it: the pods below ordinal start +
// partition keep their revision, however many of them there are.
func (p *planner) partition() int32 {
	if p.paused() {
		return p.replicaCount()
	}
	return Partition(p.set)
}

// paused reports whether an extended set's pod updates are held where
// they are: by the user (rollingUpdate.paused), by a hold of the failure
// policy (hold.go), or while the set waits for its rollout group's turn
// (rolloutgroup.go). pausedWords tells them apart.
func (p *planner) paused() bool {
	return p.ext != nil && (p.ext.Paused || p.holdPaused || p.groupWaiting())
}

func podRevision(pod *corev1.Pod) string {
	return pod.Labels[appsv1.StatefulSetRevisionLabel]
}
