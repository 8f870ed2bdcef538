package planner

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LastRoleOrder is the order of an exclusive role without updateOrder:
// after every order a role can be given (at most 1000).
const LastRoleOrder int32 = 1001

// Warning reasons and condition reasons of roles.
const (
	// ReasonExclusiveRoleConflict warns that two or more pods hold one
	// exclusive role.
	ReasonExclusiveRoleConflict = "ExclusiveRoleConflict"
	// ConditionRoleConflict is True while an exclusive role has two or
	// more holders.
	ConditionRoleConflict      = "RoleConflict"
	ReasonDuplicateHolders     = "DuplicateExclusiveHolders"
	ReasonNoRoleConflict       = "NoRoleConflict"
	reasonSwitchoverPending    = "HookPending"
	roleConflictConditionLimit = 5
)

// roleView is what one plan knows of the set's roles: each pod's role,
// the holders of exclusive roles, and the quorum's disruptions left.
type roleView struct {
	spec   *RoleSpec
	byName map[string]Role
	// conflicts are the exclusive roles with two or more holders, each
	// with its holders' names; conflicted the ordinals of those holders.
	conflicts  map[string][]string
	conflicted map[int32]string
	// quorum is true when some role is a quorum role; size, majority and
	// available describe it, left is how many Available members this plan
	// may still disrupt, and waited says the quorum's wait is explained.
	quorum                        bool
	size, majority, available     int
	left                          int
	waited                        bool
	quorumRoles, nonQuorumMembers []string
}

// rolesOf builds the plan's roleView on first use; nil without roles.
func (p *planner) rolesOf() *roleView {
	if p.ext == nil || p.ext.Roles == nil || len(p.ext.Roles.Roles) == 0 {
		return nil
	}
	if p.roles != nil {
		return p.roles
	}
	v := &roleView{spec: p.ext.Roles, byName: map[string]Role{}, conflicts: map[string][]string{}, conflicted: map[int32]string{}}
	for _, r := range v.spec.Roles {
		v.byName[r.Name] = r
		if r.Quorum {
			v.quorum = true
			v.quorumRoles = append(v.quorumRoles, r.Name)
		}
	}
	p.roles = v
	p.findConflicts(v)
	p.countQuorum(v)
	return v
}

// roleOf is the role of pod; ok is false for a pod without one (no label,
// or a value that is not a role).
func (v *roleView) roleOf(pod *corev1.Pod) (Role, bool) {
	r, ok := v.byName[pod.Labels[v.spec.LabelKey]]
	return r, ok
}

// findConflicts lists the exclusive roles that two or more of the set's
// running pods hold. A holder whose switchover is under way (it carries
// the switchover label) is handing the role over, and does not count: the
// application may label the new holder before it demotes the old one.
func (p *planner) findConflicts(v *roleView) {
	holders := map[string][]slot{}
	for _, s := range slices.Concat(p.replicas, p.condemned) {
		r, ok := v.roleOf(s.pod)
		if !ok || !r.Exclusive || isTerminating(s.pod) || isFinished(s.pod) || p.switchingOver(s.pod) {
			continue
		}
		holders[r.Name] = append(holders[r.Name], s)
	}
	for name, ss := range holders {
		if len(ss) < 2 {
			continue
		}
		for _, s := range ss {
			v.conflicts[name] = append(v.conflicts[name], s.pod.Name)
			v.conflicted[s.ordinal] = name
		}
		slices.Sort(v.conflicts[name])
		p.warn(ReasonExclusiveRoleConflict, "StatefulSet/"+p.set.Name, fmt.Sprintf("pods %s all hold the exclusive role %s=%s; the controller takes no disruptive action on any of them until only one does",
			strings.Join(v.conflicts[name], ", "), v.spec.LabelKey, name))
	}
}

// switchingOver reports whether the pod carries a switchover label of
// this set's switchover hook.
func (p *planner) switchingOver(pod *corev1.Pod) bool {
	if p.ext.Switchover == nil {
		return false
	}
	_, ok := pod.Labels[p.ext.Switchover.Label]
	return ok
}

// countQuorum sizes the quorum: the set's ordinals less the pods
// labelled with a role that is not a quorum role. Its Available members
// are the pods labelled with a quorum role that are Available, not being
// deleted and not taken out of service for an update in place.
func (p *planner) countQuorum(v *roleView) {
	if !v.quorum {
		return
	}
	v.size = int(p.layout.Len())
	for _, s := range p.replicas {
		r, ok := v.roleOf(s.pod)
		switch {
		case ok && !r.Quorum:
			v.size--
			v.nonQuorumMembers = append(v.nonQuorumMembers, s.pod.Name)
		case ok && p.quorumAvailable(s):
			v.available++
		}
	}
	v.majority = v.size/2 + 1
	v.left = v.available - v.majority
	if v.size > 0 && v.available == v.size {
		// One or two members cannot keep a majority through any
		// disruption; they are disrupted one at a time, and only while
		// every member is Available.
		v.left = max(v.left, 1)
	}
}

// quorumAvailable reports whether the pod in s counts as an Available
// member: Available, and neither going nor out of service.
func (p *planner) quorumAvailable(s slot) bool {
	return !s.placeholder && IsAvailable(s.pod, p.set.Spec.MinReadySeconds, p.in.Now) && !isTerminating(s.pod) &&
		!p.deleted[s.ordinal] && !p.inPlaceBusy(s.pod)
}

// quorumGate is the quorum's gate: an Available quorum member is taken
// out of service only while more than a majority of the quorum is
// Available (see countQuorum for one or two members). Any other pod
// costs the quorum nothing.
type quorumGate struct{ p *planner }

func init() { registerGate(rankQuorum, quorumGateOf) }

// quorumGateOf is the quorum's gate of a disruption that takes a pod out
// of service; nil for a set without a quorum role, and for a claim's
// resize, which leaves the pod in service.
func quorumGateOf(p *planner, _ *round, d disruption) gate {
	if v := p.rolesOf(); d == resize || v == nil || !v.quorum {
		return nil
	}
	return quorumGate{p}
}

// member reports whether the pod in s is an Available quorum member.
func (g quorumGate) member(s slot) bool {
	r, ok := g.p.roles.roleOf(s.pod)
	return ok && r.Quorum && g.p.quorumAvailable(s)
}

// admit lets a pod go when it is no Available member or when the quorum
// can spare one; the first refusal of a plan is explained.
func (g quorumGate) admit(s slot) bool {
	v := g.p.roles
	if !g.member(s) || v.left > 0 {
		return true
	}
	if !v.waited {
		v.waited = true
		g.p.plan.Waits = append(g.p.plan.Waits, *g.p.waitOn(s, fmt.Sprintf(
			"quorum: roles %s form a quorum of %d members, a majority is %d and %d are Available; %s is disrupted only when that leaves a majority Available, whatever maxUnavailable allows",
			strings.Join(v.quorumRoles, ", "), v.size, v.majority, v.available, s.pod.Name),
			"The quorum waits for its members to be Available and labelled with their role again; a pod without a role counts towards the quorum's size but not as Available."))
	}
	return false
}

func (g quorumGate) spend(s slot) {
	if g.member(s) {
		g.p.roles.left--
	}
}

// roleOrder is where the pod's role places it in the rolling update:
// lower first; 0 for a pod without a role.
func (p *planner) roleOrder(pod *corev1.Pod) int32 {
	v := p.rolesOf()
	if v == nil {
		return 0
	}
	r, _ := v.roleOf(pod)
	return r.Order
}

// roleName is the pod's role, or "" without one.
func (p *planner) roleName(pod *corev1.Pod) string {
	if v := p.rolesOf(); v != nil {
		if r, ok := v.roleOf(pod); ok {
			return r.Name
		}
	}
	return ""
}

func init() { registerSorter(rankRoles, roleSorter) }

// roleSorter puts pods of a lower role order first; nil for a set
// without roles.
func roleSorter(p *planner) sorter {
	if p.rolesOf() == nil {
		return nil
	}
	return func(a, b slot) int { return cmp.Compare(p.roleOrder(a.pod), p.roleOrder(b.pod)) }
}

// rolesAllow is the roles' say before the pod in s is disrupted: never
// while it is one of two or more holders of an exclusive role, and for
// the holder of an exclusive role only once its switchover is done (when
// the set has one). Otherwise it returns what carries the switchover on.
func (p *planner) rolesAllow(s slot) ([]Action, bool) {
	v := p.rolesOf()
	if v == nil {
		return nil, true
	}
	if name, ok := v.conflicted[s.ordinal]; ok {
		p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf(
			"pods %s all hold the exclusive role %s=%s; no disruptive action is taken on any of them until only one does",
			strings.Join(v.conflicts[name], ", "), v.spec.LabelKey, name),
			fmt.Sprintf("Whatever labels the roles must settle on one holder; a person can relabel the others: kubectl label pod <pod> %s=<role> --overwrite", v.spec.LabelKey)))
		return nil, false
	}
	return p.switchoverGate(v, s)
}

// roleCondition sets the RoleConflict condition on conds: True while an
// exclusive role has two or more holders, False otherwise; removed from a
// set without roles.
func (p *planner) roleCondition(conds *[]metav1.Condition, set func(typ string, status metav1.ConditionStatus, reason, msg string)) {
	v := p.rolesOf()
	if v == nil {
		removeCondition(conds, ConditionRoleConflict)
		return
	}
	if len(v.conflicts) == 0 {
		set(ConditionRoleConflict, metav1.ConditionFalse, ReasonNoRoleConflict, "no exclusive role has more than one holder")
		return
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(v.conflicts)) {
		holders := v.conflicts[name]
		if len(holders) > roleConflictConditionLimit {
			holders = append(holders[:roleConflictConditionLimit:roleConflictConditionLimit], fmt.Sprintf("and %d more", len(v.conflicts[name])-roleConflictConditionLimit))
		}
		parts = append(parts, fmt.Sprintf("%s=%s is held by %s", v.spec.LabelKey, name, strings.Join(holders, ", ")))
	}
	set(ConditionRoleConflict, metav1.ConditionTrue, ReasonDuplicateHolders, strings.Join(parts, "; ")+"; no disruptive action is taken on them")
}

func removeCondition(conds *[]metav1.Condition, typ string) {
	*conds = slices.DeleteFunc(*conds, func(c metav1.Condition) bool { return c.Type == typ })
}
