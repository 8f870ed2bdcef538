package planner

import (
	"cmp"
	"maps"
	"slices"
)

// countPartition reports whether the set counts its partition in pods
// (rollingUpdate.partitionMode Count); never for apps/v1.
func (p *planner) countPartition() bool { return p.ext != nil && p.ext.PartitionCount }

// keepCount decides, for a Count partition, which of the set's ordinals
// keep the current revision: the last partition of them in the update
// order. That order is:
//  1. pods at the update revision, not terminating;
//  2. pods being replaced: terminating, or missing (a missing pod is one
//     the update deleted, or a new one);
//  3. the other pods by weight under the priority rules, highest first;
//
// each group highest ordinal first. Pods the update has chosen stay
// chosen while they are replaced, so the count holds: at most replicas -
// partition pods are taken to the update revision. It walks every one of
// the set's ordinals, missing ones included; only Count sets pay for it.
func (p *planner) keepCount() {
	if !p.countPartition() {
		return
	}
	type ranked struct {
		ord    int32
		group  int
		weight int64
	}
	var all []ranked
	p.eachOrdinalDown(func(ord int32, s *slot) bool {
		r := ranked{ord: ord, group: 1}
		switch {
		case s == nil || isTerminating(s.pod):
		case podRevision(s.pod) == p.update:
			r.group = 0
		default:
			r.group, r.weight = 2, p.weigher.weight(s.pod.Labels)
		}
		all = append(all, r)
		return true
	})
	slices.SortStableFunc(all, func(a, b ranked) int {
		if a.group != b.group {
			return cmp.Compare(a.group, b.group)
		}
		return cmp.Compare(b.weight, a.weight)
	})
	updated := max(len(all)-int(Partition(p.set)), 0)
	p.kept = make(map[int32]bool, len(all)-updated)
	for _, r := range all[updated:] {
		p.kept[r.ord] = true
	}
}

// countPartitionReached is partitionReached for a Count partition: every
// pod the partition does not keep exists, runs the update revision and
// is Available, and the partition keeps at least one pod.
func (p *planner) countPartitionReached() bool {
	if len(p.kept) == 0 || p.ext.Recreate || p.onDelete() {
		return false
	}
	minReady, now := p.set.Spec.MinReadySeconds, p.in.Now
	observed := 0
	for _, s := range p.replicas {
		if p.kept[s.ordinal] {
			continue
		}
		if isTerminating(s.pod) || podRevision(s.pod) != p.update || !IsAvailable(s.pod, minReady, now) {
			return false
		}
		observed++
	}
	return observed == int(p.layout.Len())-len(p.kept)
}

// updatable reports whether the partition lets the rolling update take
// the pod at ord, whether or not the set is paused.
func (p *planner) updatable(ord int32) bool {
	if p.countPartition() {
		return !p.kept[ord]
	}
	return int64(ord) >= int64(p.start)+int64(Partition(p.set))
}

// partitionGoesOn reports whether a walk of the set's pods from the
// highest ordinal down must go on past ord to find every pod the
// partition lets the update take: an Ordinal partition's pods are all
// above it, a Count partition's anywhere.
func (p *planner) partitionGoesOn(ord int32) bool {
	return p.countPartition() || p.abovePartition(ord)
}

// keptPods names the pods a Count partition keeps, lowest ordinal first.
func (p *planner) keptPods() []string {
	if !p.countPartition() {
		return nil
	}
	ords := slices.Sorted(maps.Keys(p.kept))
	out := make([]string, len(ords))
	for i, ord := range ords {
		out[i] = PodName(p.set.Name, ord)
	}
	return out
}
