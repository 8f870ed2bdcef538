package planner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// extend computes what an extended set's plan adds to st, in order:
//  1. the counts of updated pods that are Ready and Available;
//  2. the last completed revision, and when the rollout last made progress;
//  3. the pods the rollout is blocked by, classified;
//  4. the hold in force, or its end (hold.go);
//  5. whether the rollout failed (a pod at the update revision failing
//     permanently) or ran past its deadline, and the hold the failure
//     policy records for it;
//  6. the conditions Available, Progressing, ReplicaFailure and Held.
//
// Without a resolved revision (resolveRevisions warns) nothing can be
// judged: the last extended status is kept as it was.
func (p *planner) extend(st appsv1.StatefulSetStatus) *ExtendedPlan {
	if p.updateSet == nil {
		return &ExtendedPlan{Status: p.ext.Last}
	}
	x := ExtendedStatus{UpdateRevision: st.UpdateRevision, UpdatedReplicas: st.UpdatedReplicas, Rollback: p.ext.Last.Rollback, Hold: p.hold}
	p.atPartition = p.partitionReached()
	p.countUpdated(&x)
	done := p.complete(st)
	p.trackProgress(&x, st, done)
	x.BlockedBy = p.blockedBy()
	x.VolumeClaims = p.volumeClaims()
	x.Members, x.MembersOmitted = p.members()
	x.Overrides = p.overrideCounts()
	// A rollout is in progress until its update revision has once
	// completed; after that a missing or broken pod is a replica
	// failure, not a failed rollout.
	rolling := x.LastCompletedRevision != st.UpdateRevision
	out := &ExtendedPlan{Order: p.updateOrder(), Domains: p.planDomains(), Kept: p.keptPods(), HoldEvent: p.endedEvent(), Budget: p.budgetPlan()}
	failure := p.rolloutFailure(x, rolling)
	if failure != "" {
		if ev := p.onFailure(&x, failure); ev != nil {
			out.HoldEvent = ev
		}
	}
	x.Conditions = p.conditions(st, x, rolling, done, failure)
	p.budgetCondition(&x.Conditions, out.Budget, p.conditionSetter(&x.Conditions))
	x.BlockedBy = x.BlockedBy[:min(len(x.BlockedBy), MaxBlockedBy)]
	out.Status = x
	if rolling && !p.paused() && !p.atPartition {
		p.requeueBy(p.deadlineLeft(x))
	}
	return out
}

// partitionReached reports whether a rolling update that a partition
// holds has done all it may: every one of the set's pods at or above the
// partition exists, runs the update revision and is Available. The
// rollout then waits for the user to lower the partition, and its
// deadline does not run, as while paused.
func (p *planner) partitionReached() bool {
	if p.countPartition() {
		return p.countPartitionReached()
	}
	part := Partition(p.set)
	if part <= 0 || p.ext.Recreate || p.onDelete() {
		return false
	}
	from, minReady, now := int64(p.start)+int64(part), p.set.Spec.MinReadySeconds, p.in.Now
	observed := 0
	for _, s := range p.replicas {
		if int64(s.ordinal) < from {
			continue
		}
		if isTerminating(s.pod) || podRevision(s.pod) != p.update || !IsAvailable(s.pod, minReady, now) {
			return false
		}
		observed++
	}
	return observed == p.ordinalsFrom(from)
}

func (p *planner) countUpdated(x *ExtendedStatus) {
	minReady, now := p.set.Spec.MinReadySeconds, p.in.Now
	for _, pod := range p.observed() {
		if !isCreated(pod) || isTerminating(pod) || podRevision(pod) != p.update {
			continue
		}
		if IsRunningAndReady(pod) {
			x.UpdatedReadyReplicas++
			if IsAvailable(pod, minReady, now) {
				x.UpdatedAvailableReplicas++
			}
		}
	}
}

// complete is the status a finished rollout has: every wanted pod exists,
// runs the update revision, Ready and Available, and the update revision
// is current.
func (p *planner) complete(st appsv1.StatefulSetStatus) bool {
	want := p.wanted()
	return st.CurrentRevision == st.UpdateRevision && st.UpdatedReplicas == want && st.Replicas == want &&
		st.ReadyReplicas == want && st.AvailableReplicas == want
}

// trackProgress moves LastProgress to now on progress: a new update
// revision, one more pod at it, one more of those Available, a completed
// rollout, a resume, or the end of a hold. A paused rollout's time does
// not count against its deadline, nor does the time a rollout waits at
// its partition: once the last status said paused or held at the
// partition and the set no longer is, the deadline counts from now.
func (p *planner) trackProgress(x *ExtendedStatus, st appsv1.StatefulSetStatus, done bool) {
	last := p.ext.Last
	x.LastCompletedRevision = last.LastCompletedRevision
	if done {
		x.LastCompletedRevision = st.UpdateRevision
	}
	x.LastProgress = last.LastProgress
	if done || last.LastProgress.IsZero() || last.UpdateRevision != st.UpdateRevision ||
		st.UpdatedReplicas > last.UpdatedReplicas || x.UpdatedAvailableReplicas > last.UpdatedAvailableReplicas ||
		p.resumed() || p.holdEnded() != "" {
		x.LastProgress = p.in.Now
	}
}

// resumed reports whether the set was paused, or held at its partition,
// at the last status and is not now.
func (p *planner) resumed() bool {
	c := meta.FindStatusCondition(p.ext.Last.Conditions, ConditionProgressing)
	if c == nil {
		return false
	}
	return (c.Reason == ReasonRolloutPaused && !p.paused()) || (c.Reason == ReasonPartitionRolledOut && !p.atPartition)
}

// MaxBlockedBy bounds status.blockedBy, and MaxFailuresListed the pods
// the ReplicaFailure condition's message names. Both list pods that
// exist, but a set of many thousands of pods whose image cannot be pulled
// has that many stuck pods, and a status must stay writable: the API
// server refuses a condition message over 32768 characters, and an
// object over its request size limit (about 1.5 MiB). The first pods by
// ordinal are listed; the rollout's failure is judged from them all.
const (
	MaxBlockedBy      = 50
	MaxFailuresListed = 10
)

// blockedBy lists, in ordinal order, the pods the rollout waits on or that
// run the update revision and are not Available, which are stuck: failing
// permanently (at once), or in their state for longer than the progress
// deadline. Pods merely starting are not listed.
func (p *planner) blockedBy() []PodFailure {
	waited := map[string]bool{}
	for _, w := range p.plan.Waits {
		waited[w.Pod] = true
	}
	var out []PodFailure
	for _, s := range append(append([]slot(nil), p.replicas...), p.condemned...) {
		if !waited[s.pod.Name] && podRevision(s.pod) != p.update {
			continue
		}
		f := Classify(s.pod, p.set.Spec.MinReadySeconds, p.in.Now, p.ext.ProgressDeadline)
		if f != nil && (f.Permanent || p.in.Now.Sub(f.Since) >= p.ext.ProgressDeadline) {
			f.Ordinal = s.ordinal
			out = append(out, *f)
		}
	}
	for _, b := range p.blocks {
		if b.listed || b.Permanent || p.in.Now.Sub(b.Since) >= p.ext.ProgressDeadline {
			out = append(out, b.PodFailure)
		}
	}
	slices.SortStableFunc(out, func(a, b PodFailure) int { return int(a.Ordinal - b.Ordinal) })
	return out
}

// rolloutFailure says why the rollout has failed, or "": a pod at the
// update revision fails permanently, an InPlaceOnly rollout holds at a pod
// it cannot change in place, or no progress within the deadline.
// A paused rollout, or none, does not fail; nor does a pod failure that
// began before a hold ended (retrySince), which the plan retries.
func (p *planner) rolloutFailure(x ExtendedStatus, rolling bool) string {
	if !rolling || p.paused() || p.atPartition {
		return ""
	}
	retry := p.retrySince()
	for _, f := range x.BlockedBy {
		if f.Permanent && f.Since.Before(retry) {
			continue
		}
		if f.Permanent && f.Revision == p.update {
			p.warn(ReasonRolloutFailed, "Pod/"+f.Pod, fmt.Sprintf("revision %s fails: %s: %s", p.update, f.Reason, f.Message))
			return fmt.Sprintf("%s at revision %s: %s (%s)", f.Pod, p.update, f.Reason, f.Message)
		}
		if f.Reason == ReasonInPlaceImpossible {
			p.warn(ReasonRolloutFailed, "Pod/"+f.Pod, fmt.Sprintf("revision %s cannot roll out under InPlaceOnly: %s", p.update, f.Message))
			return fmt.Sprintf("%s: %s (%s)", f.Pod, f.Reason, f.Message)
		}
	}
	if d := p.ext.ProgressDeadline; d > 0 && p.in.Now.Sub(x.LastProgress) >= d {
		msg := fmt.Sprintf("no progress for %s (progressDeadlineSeconds %d)", p.in.Now.Sub(x.LastProgress).Round(time.Second), int(d.Seconds()))
		p.warn(ReasonProgressDeadlineExceeded, "StatefulSet/"+p.set.Name, "revision "+p.update+": "+msg)
		return msg
	}
	return ""
}

// onFailure applies the failure policy: it records a hold in x and
// returns the event that reports it (nil under Report). A rollback runs
// the last completed revision, once: when the revision a rollback
// restored fails too, or there is nothing to return to, the rollout is
// held paused instead, so a rollback never loops. The spec is not
// changed.
func (p *planner) onFailure(x *ExtendedStatus, why string) *HoldEvent {
	switch p.ext.OnFailure {
	case v1alpha1.FailurePause:
		return p.newHold(x, v1alpha1.HoldPaused, p.update, "rollout failed: "+why)
	case v1alpha1.FailureRollback:
		to := x.LastCompletedRevision
		switch {
		case p.hold != nil || (x.Rollback != nil && x.Rollback.To == p.update):
			return p.newHold(x, v1alpha1.HoldPaused, p.update, fmt.Sprintf("rollout failed after a rollback to %s: %s; paused instead of rolling back again", p.update, why))
		case to == "" || to == p.update:
			return p.newHold(x, v1alpha1.HoldPaused, p.update, fmt.Sprintf("rollout failed and no earlier revision completed: %s; paused", why))
		}
		ev := p.newHold(x, v1alpha1.HoldRolledBack, to, why)
		x.Rollback = &RollbackRecord{From: p.update, To: to, Reason: why, Time: p.in.Now}
		return ev
	}
	return nil
}

// conditions computes Available, Progressing and ReplicaFailure, keeping
// each one's lastTransitionTime while its status stays the same.
func (p *planner) conditions(st appsv1.StatefulSetStatus, x ExtendedStatus, rolling, done bool, failure string) []metav1.Condition {
	conds := make([]metav1.Condition, 0, 3)
	for _, c := range p.ext.Last.Conditions {
		conds = append(conds, *c.DeepCopy())
	}
	set := p.conditionSetter(&conds)
	if want := int(p.wanted()); int(st.AvailableReplicas) >= want-p.ext.MaxUnavailable {
		set(ConditionAvailable, metav1.ConditionTrue, ReasonMinimumAvailable, fmt.Sprintf("%d of %d pods are available", st.AvailableReplicas, want))
	} else {
		set(ConditionAvailable, metav1.ConditionFalse, ReasonMinimumUnavailable, fmt.Sprintf("%d of %d pods are available; at least %d must be", st.AvailableReplicas, want, want-p.ext.MaxUnavailable))
	}
	status, reason, msg := p.progressing(st, x, rolling, done, failure)
	set(ConditionProgressing, status, reason, msg)
	if broken := permanentFailures(x.BlockedBy); len(broken) > 0 {
		set(ConditionReplicaFailure, metav1.ConditionTrue, ReasonPodFailure, strings.Join(broken, "; "))
	} else {
		set(ConditionReplicaFailure, metav1.ConditionFalse, ReasonNoFailure, "no pod is failing")
	}
	p.heldCondition(x, set)
	p.roleCondition(&conds, set)
	p.groupCondition(&conds)
	p.claimRecreationCondition(&conds, set)
	return conds
}

// conditionSetter returns the setter of one condition on conds, which keeps
// its lastTransitionTime while its status stays the same.
func (p *planner) conditionSetter(conds *[]metav1.Condition) func(typ string, status metav1.ConditionStatus, reason, msg string) {
	return func(typ string, status metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(conds, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg,
			ObservedGeneration: p.set.Generation, LastTransitionTime: metav1.NewTime(p.in.Now)})
	}
}

func (p *planner) progressing(st appsv1.StatefulSetStatus, x ExtendedStatus, rolling, done bool, failure string) (metav1.ConditionStatus, string, string) {
	switch h := p.hold; {
	case h != nil && h.Action == v1alpha1.HoldRolledBack && !done && failure == "":
		return metav1.ConditionTrue, ReasonRollingBack, fmt.Sprintf("rolling back from %s to %s: %s", h.FailedRevision, h.Revision, h.Reason)
	case !rolling:
		return metav1.ConditionTrue, ReasonRolloutComplete, fmt.Sprintf("revision %s is rolled out", st.UpdateRevision)
	case p.paused():
		return metav1.ConditionUnknown, ReasonRolloutPaused, p.pausedWords(st)
	case p.atPartition && p.countPartition():
		return metav1.ConditionTrue, ReasonPartitionRolledOut, fmt.Sprintf("revision %s is rolled out to %d pods; the partition (Count) keeps %d at the current revision",
			st.UpdateRevision, int(p.layout.Len())-len(p.kept), len(p.kept))
	case p.atPartition:
		return metav1.ConditionTrue, ReasonPartitionRolledOut, fmt.Sprintf("revision %s is rolled out to ordinals %d and above; the partition holds the others",
			st.UpdateRevision, int64(p.start)+int64(Partition(p.set)))
	case failure != "" && strings.HasPrefix(failure, "no progress"):
		return metav1.ConditionFalse, ReasonProgressDeadlineExceeded, failure
	case failure != "":
		return metav1.ConditionFalse, ReasonRolloutFailed, failure
	case x.Rollback != nil && x.Rollback.To == st.UpdateRevision:
		return metav1.ConditionTrue, ReasonRollingBack, fmt.Sprintf("rolling back from %s to %s: %s", x.Rollback.From, x.Rollback.To, x.Rollback.Reason)
	}
	return metav1.ConditionTrue, ReasonRolloutProgressing, fmt.Sprintf("%d of %d pods at revision %s are available", x.UpdatedAvailableReplicas, p.wanted(), st.UpdateRevision)
}

// permanentFailures names the pods that fail permanently, the first
// MaxFailuresListed of them, and counts the rest.
func permanentFailures(fs []PodFailure) []string {
	var out []string
	more := 0
	for _, f := range fs {
		switch {
		case !f.Permanent:
		case len(out) < MaxFailuresListed:
			out = append(out, fmt.Sprintf("%s: %s: %s", f.Pod, f.Reason, f.Message))
		default:
			more++
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("and %d more pods", more))
	}
	return out
}

// deadlineLeft is how long until the progress deadline of the running
// rollout passes, plus a second, so that a sync sees it pass even if
// nothing else happens; zero when it has passed or there is none.
func (p *planner) deadlineLeft(x ExtendedStatus) time.Duration {
	d := p.ext.ProgressDeadline
	if d <= 0 {
		return 0
	}
	left := x.LastProgress.Add(d).Sub(p.in.Now)
	if left <= 0 {
		return 0
	}
	return left + time.Second
}
