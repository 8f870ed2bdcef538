package invariant

import (
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// applyNodeLabels records a node's labels, which give pods their
// topology domain; a deleted node is forgotten.
func (r *replay) applyNodeLabels(ev Event, node *corev1.Node) {
	if ev.Type == "DELETED" {
		delete(r.nodeLabels, node.Name)
		return
	}
	r.nodeLabels[node.Name] = node.Labels
}

// topologies returns every version's rollingUpdate.topology; false when
// a version has none.
func (st *setTrack) topologies(specs []*appsv1.StatefulSet) ([]*v1alpha1.RolloutTopology, bool) {
	out := make([]*v1alpha1.RolloutTopology, 0, len(specs))
	for _, s := range specs {
		x := st.extOf(s)
		if x == nil || x.Spec.UpdateStrategy.RollingUpdate == nil || x.Spec.UpdateStrategy.RollingUpdate.Topology == nil {
			return nil, false
		}
		out = append(out, x.Spec.UpdateStrategy.RollingUpdate.Topology)
	}
	return out, true
}

func topologyKey(t *v1alpha1.RolloutTopology) string {
	if t.Key == "" {
		return v1alpha1.DefaultTopologyKey
	}
	return t.Key
}

func perDomain(t *v1alpha1.RolloutTopology) int { return max(int(t.MaxUnavailablePerDomain), 1) }

// domainOf is the domain of the node under key: the label's value, ""
// for a node without it; false for a node the checker has not seen.
func (r *replay) domainOf(node, key string) (string, bool) {
	labels, ok := r.nodeLabels[node]
	if !ok {
		return "", false
	}
	return labels[key], true
}

// judgeTopology checks RuleDomainBudget and RuleDomainOrder for a
// controller deletion of an in-range pod Available throughout the
// window, not requested, of an extended set with topology in every
// version of the window.
func (r *replay) judgeTopology(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	tops, ok := st.topologies(specs)
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	zone, full, known := r.domainFull(ev, specs, tops, ord, pod, false)
	if !known {
		return
	}
	k := key(pod.Namespace, pod.Name)
	set, top := specs[len(specs)-1], tops[len(tops)-1]
	if full {
		r.violate(RuleDomainBudget, k, ev, "deleted %s, Available all along, in domain %q, where %d other pods were unavailable (or not yet on a node) all along (maxUnavailablePerDomain %d)",
			pod.Name, zone, r.domainTakenThroughout(ev, set, ord, topologyKey(top), zone, false), perDomain(top))
	}
	for i, s := range specs {
		domain, _ := r.domainOf(pod.Spec.NodeName, topologyKey(tops[i]))
		if _, ok := r.earlierDomainUnfinished(ev, st, s, tops[i], pod, ord, domain); !ok {
			return
		}
	}
	j, _ := r.earlierDomainUnfinished(ev, st, set, top, pod, ord, zone)
	r.violate(RuleDomainOrder, k, ev, "deleted %s in domain %q while %s, in a domain before it, was unavailable or at an old revision all along",
		pod.Name, zone, podName(set.Name, j))
}

// judgeMoveDomain checks RuleDomainBudget for a controller deletion the
// rollout did not make (a pod labelled for deletion, on a drained node,
// or one an eviction request asked for) of an in-range pod Available
// throughout the window: such a move may take a pod of any domain, but
// only while its own domain's pods (on its nodes) leave it room.
func (r *replay) judgeMoveDomain(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	tops, ok := st.topologies(specs)
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	zone, full, known := r.domainFull(ev, specs, tops, ord, pod, true)
	if !known || !full {
		return
	}
	set, top := specs[len(specs)-1], tops[len(tops)-1]
	r.violate(RuleDomainBudget, key(pod.Namespace, pod.Name), ev, "moved %s (not for the rollout), Available all along, in domain %q, where %d other pods on its nodes were unavailable all along (maxUnavailablePerDomain %d)",
		pod.Name, zone, r.domainTakenThroughout(ev, set, ord, topologyKey(top), zone, true), perDomain(top))
}

// domainFull reports the pod's domain (as the window's last version
// names it) and whether, in every version of the window, that domain
// already had maxUnavailablePerDomain other pods taken
// (domainTakenThroughout, placed as there); known is false when a
// version's domain of the pod's node is not known.
func (r *replay) domainFull(ev Event, specs []*appsv1.StatefulSet, tops []*v1alpha1.RolloutTopology, ord int32, pod *corev1.Pod, placed bool) (zone string, full, known bool) {
	full = true
	for i, s := range specs {
		domain, ok := r.domainOf(pod.Spec.NodeName, topologyKey(tops[i]))
		if !ok {
			return "", false, false
		}
		zone = domain
		if r.domainTakenThroughout(ev, s, ord, topologyKey(tops[i]), domain, placed) < perDomain(tops[i]) {
			full = false
		}
	}
	return zone, full, true
}

// domainTakenThroughout counts the ordinals of set's range other than
// ord whose pod was unhealthy at every instant of the window and, at
// every instant, on a node of domain or (unless placed) on no node.
func (r *replay) domainTakenThroughout(ev Event, set *appsv1.StatefulSet, ord int32, topoKey, domain string, placed bool) int {
	from := ev.Time.Add(-r.opts.Window)
	n := 0
	for _, j := range r.setOrdinals(set) {
		if j == ord {
			continue
		}
		hist := r.podHistory(set.Namespace, set.Name, j)
		healthy := hist.heldWithin(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
			return r.healthyAt(p, set.Spec.MinReadySeconds, at)
		})
		there := hist.heldThroughout(from, ev.Time, func(p *corev1.Pod, _ time.Time) bool {
			if p == nil || p.Spec.NodeName == "" {
				return !placed
			}
			d, known := r.domainOf(p.Spec.NodeName, topoKey)
			return known && d == domain
		})
		if !healthy && there {
			n++
		}
	}
	return n
}

// earlierDomainUnfinished returns an ordinal whose pod was, at every
// instant of the window, one object on a node of a domain that comes
// before domain in the rollout order, and either unhealthy at every
// instant or (under an Ordinal partition, at or above it) old at every
// instant: at the revision of the deleted pod, which the rolling update
// deleted it for, or at another than the window's one update revision
// when it has one.
func (r *replay) earlierDomainUnfinished(ev Event, st *setTrack, set *appsv1.StatefulSet, top *v1alpha1.RolloutTopology, deleted *corev1.Pod, ord int32, domain string) (int32, bool) {
	from, topoKey := ev.Time.Add(-r.opts.Window), topologyKey(top)
	rev, revKnown := updateRevisionWithin([]*appsv1.StatefulSet{set})
	isOld := oldness(deleted, rev, revKnown)
	x := st.extOf(set)
	ordinal := x != nil && x.Spec.UpdateStrategy.RollingUpdate.PartitionMode != v1alpha1.PartitionCount
	start, _ := span(set)
	for _, j := range r.setOrdinals(set) {
		if j == ord {
			continue
		}
		hist := r.podHistory(set.Namespace, set.Name, j)
		states := hist.within(from, ev.Time)
		if len(states) == 0 || states[0] == nil {
			continue
		}
		uid := states[0].UID
		before := hist.heldThroughout(from, ev.Time, func(p *corev1.Pod, _ time.Time) bool {
			if p == nil || p.UID != uid || p.Spec.NodeName == "" {
				return false
			}
			d, known := r.domainOf(p.Spec.NodeName, topoKey)
			return known && domainBefore(top, d, domain)
		})
		if !before {
			continue
		}
		unhealthy := !hist.heldWithin(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
			return r.healthyAt(p, set.Spec.MinReadySeconds, at)
		})
		old := ordinal && int64(j) >= int64(start)+int64(st.partitionOf(set)) &&
			hist.heldThroughout(from, ev.Time, func(p *corev1.Pod, _ time.Time) bool {
				return p != nil && isOld(p.Labels[RevisionLabel])
			})
		if unhealthy || old {
			return j, true
		}
	}
	return 0, false
}

// domainBefore reports whether domain a comes before b: the domains
// order lists first, in its order, then the others by name, and "" (no
// label) last.
func domainBefore(top *v1alpha1.RolloutTopology, a, b string) bool {
	rank := func(d string) int {
		if d == "" {
			return len(top.Order) + 1
		}
		if i := slices.Index(top.Order, d); i >= 0 {
			return i
		}
		return len(top.Order)
	}
	if rank(a) != rank(b) {
		return rank(a) < rank(b)
	}
	return a < b
}
