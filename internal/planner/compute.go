package planner

import (
	appsv1 "k8s.io/api/apps/v1"
)

// Compute plans one sync of in.Set. The passes run in upstream's order and
// stop where upstream stops:
//  1. sort pods into the ordinal range and condemned (a missing ordinal's
//     pod is built by the pass that acts on it);
//  2. if the set is being deleted, only compute status; otherwise carry
//     on an extended set's updates in place and set readiness gates
//     (podinplace.go), and move the pods whose effective template an
//     update does not change (overrides.go);
//  3. under Recreate, while old-revision pods exist, their deletion and
//     nothing else (recreate.go);
//  4. the replica pass: replace finished pods, create missing ones, repair
//     identity, storage and claim retention (OrderedReady stops at the first
//     pod that is not healthy; Parallel works pod by pod in slow-start
//     batches and stops after a batch in which a pod fails, or in which it
//     reached MaxCreates missing pods);
//  5. claim retention for condemned pods, then the scale-down pass
//     (OrderedReady deletes one pod, highest ordinal first); Parallel runs
//     these two before the replica pass (scalePasses);
//  6. an extended set's pods labelled for deletion, then those on drained
//     nodes or asked to go by an eviction request (nodedrain.go,
//     evictionrequest.go), within maxUnavailable;
//  7. the rolling update, unless the strategy is OnDelete or Recreate (or a
//     type this controller does not know, which is reported), in an
//     extended set's priority order (priority.go);
//  8. the status, with currentRevision promoted once the update is
//     complete, and an apps/v1 Recreate set's Progressing condition.
func Compute(in Input) Plan {
	if in.Set == nil {
		return Plan{}
	}
	p := &planner{in: in, set: in.Set, ext: in.Extended, deleted: map[int32]bool{}}
	p.monotonic = in.Set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement
	p.sortPods()
	p.reportInvalid()
	if p.resolveRevisions() && p.recreateAllowed() {
		p.checkNames()
		p.checkStrategy()
		p.unordered = !p.compilePriority()
		p.keepCount()
		p.run()
		if p.set.DeletionTimestamp == nil {
			p.hookCleanupPass()
		}
	}
	p.plan.Status = p.status()
	p.requeueBy(p.requeueAfter())
	if p.ext != nil {
		p.groupWait()
		p.plan.Extended = p.extend(p.plan.Status)
		p.plan.Extended.EvictionResponses = p.evictionResponses()
	}
	return p.plan
}

// reportInvalid warns about each value of an extended set's spec that
// could not be read (Extended.Invalid).
func (p *planner) reportInvalid() {
	if p.ext == nil {
		return
	}
	for _, e := range p.ext.Invalid {
		p.warn(e.Reason, "StatefulSet/"+p.set.Name, e.Field+": "+e.Message)
	}
}

func (p *planner) run() {
	if p.set.DeletionTimestamp != nil {
		return
	}
	if !p.nodeFailurePass() {
		return
	}
	p.inPlacePass()
	p.reloadPass()
	p.movePass()
	if p.recreatePass() || !p.scalePasses() {
		return
	}
	p.deleteRequestedPass()
	p.nodeDrainPass()
	switch p.set.Spec.UpdateStrategy.Type {
	case appsv1.OnDeleteStatefulSetStrategyType:
		p.onDeleteWaits()
	case appsv1.RollingUpdateStatefulSetStrategyType, "":
		p.rollingUpdate()
	}
}

// scalePasses runs the replica pass and the condemned pods' passes and
// reports whether the later passes may run. OrderedReady runs them in
// upstream's order: the range first, and scale-down only once every pod
// in it is healthy. Parallel scales down first: a pod that cannot be
// created (a ResourceQuota refusing it after a scale-up that did not
// finish) would otherwise hold up, for good, the very deletes that free
// the quota. Upstream fixed this after 1.37 (#141057, for 1.38).
func (p *planner) scalePasses() bool {
	if !p.monotonic {
		p.retentionPass()
		p.condemnedPass()
		return p.replicaPass()
	}
	if !p.replicaPass() {
		return false
	}
	p.retentionPass()
	return p.condemnedPass()
}
