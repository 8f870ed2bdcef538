package rolloutview

import (
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// selfHealingPrefix starts the reason of every action self-healing plans
// (planner.selfHeal); the plan's text picks those actions out by it.
const selfHealingPrefix = "self-healing:"

// ExtendedPlan is what an extended set's rollout safety does next: the
// settings it runs with, what the planner computed for them, the failure
// policy's hold in force and what the plan records about holds now.
type ExtendedPlan struct {
	Paused                  bool   `json:"paused"`
	Recreate                bool   `json:"recreate"`
	SelfHealing             bool   `json:"selfHealing"`
	OnFailure               string `json:"onFailure"`
	ProgressDeadlineSeconds int64  `json:"progressDeadlineSeconds"`
	// Rolling is true while the update revision has not once completed.
	Rolling               bool       `json:"rolling"`
	LastCompletedRevision string     `json:"lastCompletedRevision,omitempty"`
	LastProgress          *time.Time `json:"lastProgress,omitempty"`
	// AtPartition is true when the rolling update has done all its
	// partition allows and waits for it to be lowered.
	AtPartition bool `json:"atPartition,omitempty"`
	// Deadline is when the progress deadline passes; nil while it does
	// not run (no rollout, paused, or held at the partition).
	Deadline *time.Time `json:"deadline,omitempty"`
	// SelfHealed are the planned actions that replace broken pods of an
	// old revision.
	SelfHealed []Action    `json:"selfHealed"`
	BlockedBy  []Blocked   `json:"blockedBy"`
	Conditions []Condition `json:"conditions"`
	Rollback   *Rollback   `json:"rollback,omitempty"`
	// Hold is the failure policy's hold in force after this plan, nil
	// without one; Now says what the plan records about holds (a new
	// hold, or the end of one), "" when nothing.
	Hold *Hold  `json:"hold,omitempty"`
	Now  string `json:"now,omitempty"`
	// Priority are rollingUpdate.priority's rules, and Order the
	// old-revision pods in the order the rolling update replaces them;
	// both empty for a set without rules.
	Priority []PriorityRule `json:"priority,omitempty"`
	Order    []OrderedPod   `json:"order,omitempty"`
	// Roles are spec.roles, nil without them.
	Roles *Roles `json:"roles,omitempty"`
	// MemberHooks are the postCreate and postUpdate hooks, and Offline
	// the offline ordinals (plan_members.go).
	MemberHooks []MemberHook `json:"memberHooks,omitempty"`
	Offline     []string     `json:"offline,omitempty"`
	// ConfigReload says how configRevisions apply Reload brings new data
	// to running pods; empty under Restart (plan_members.go).
	ConfigReload string `json:"configReload,omitempty"`
	// Topology is rollingUpdate.topology with the domains in rollout
	// order; nil for a set without it.
	Topology *Topology `json:"topology,omitempty"`
	// PartitionMode is rollingUpdate.partitionMode: Ordinal or Count.
	PartitionMode string `json:"partitionMode,omitempty"`
	// Kept are the pods a Count partition keeps at the current revision.
	Kept []string `json:"kept,omitempty"`
	// DisruptionBudgets is rollingUpdate.respectDisruptionBudgets: the
	// pods the rollout removes are evicted.
	DisruptionBudgets bool `json:"disruptionBudgets,omitempty"`
	// OwnBudget is the PodDisruptionBudget spec.disruptionBudget keeps,
	// in words; empty without the field.
	OwnBudget string `json:"ownBudget,omitempty"`
	// RolloutGroup is rollingUpdate.rolloutGroup, and GroupTurn the set's
	// turn in it in words; both empty without a group.
	RolloutGroup string `json:"rolloutGroup,omitempty"`
	GroupTurn    string `json:"groupTurn,omitempty"`
	// EvictionRequests are the set's answers to the eviction requests of
	// its pods whose responder the controller is (lifecycle.k8s.io,
	// KEP-4563): moving, moved or declined, and why.
	EvictionRequests []EvictionAnswer `json:"evictionRequests,omitempty"`
}

// EvictionAnswer is the set's answer to the eviction request of one pod.
type EvictionAnswer struct {
	Pod        string   `json:"pod"`
	Requesters []string `json:"requesters,omitempty"`
	// Outcome is Moving, Moved or Declined (planner.ResponseOutcome).
	Outcome string `json:"outcome"`
	Message string `json:"message"`
}

// PriorityRule is one rollingUpdate.priority rule, its selector written
// as kubectl writes one.
type PriorityRule struct {
	Selector string `json:"selector"`
	Weight   int32  `json:"weight"`
}

// OrderedPod is a pod in the rolling update's order, with its weight;
// Now is true when the plan replaces it now.
type OrderedPod struct {
	Pod    string `json:"pod"`
	Weight int64  `json:"weight"`
	Now    bool   `json:"now,omitempty"`
	// Role is the pod's role under spec.roles, "" without one.
	Role string `json:"role,omitempty"`
}

// ExtendPlan adds to r what the planner's extended inputs in, what it
// observed (obs) and its plan say about the rollout's safety.
func ExtendPlan(r *PlanReport, in *planner.Extended, obs planner.Observed, plan planner.Plan) {
	x := &ExtendedPlan{
		Paused: in.Paused, Recreate: in.Recreate, SelfHealing: in.SelfHealing, OnFailure: string(in.OnFailure),
		ProgressDeadlineSeconds: int64(in.ProgressDeadline / time.Second),
		SelfHealed:              []Action{}, BlockedBy: []Blocked{}, Conditions: []Condition{},
		DisruptionBudgets: in.Budgets.Respect,
	}
	groupPlan(x, obs.Group)
	st := in.Last
	if plan.Extended != nil {
		st = plan.Extended.Status
		if ev := plan.Extended.HoldEvent; ev != nil {
			x.Now = ev.Reason + ": " + ev.Message
		}
	}
	x.Hold = holdOf(st.Hold, r.Name)
	x.LastCompletedRevision = st.LastCompletedRevision
	x.Rolling = st.LastCompletedRevision != r.Update.Name
	if c := meta.FindStatusCondition(st.Conditions, planner.ConditionProgressing); c != nil {
		x.AtPartition = c.Reason == planner.ReasonPartitionRolledOut
	}
	if !st.LastProgress.IsZero() {
		last := st.LastProgress.UTC()
		x.LastProgress = &last
		if x.Rolling && !in.Paused && !x.AtPartition && in.ProgressDeadline > 0 {
			at := last.Add(in.ProgressDeadline)
			x.Deadline = &at
		}
	}
	fillExtendedStatus(x, st, r.Steps)
	if plan.Extended != nil {
		x.OwnBudget = ownBudgetWords(plan.Extended.Budget, obs.Budgets != nil)
	}
	fillPriority(x, in, plan.Extended)
	x.Roles = rolesOf(in.Roles, in.Switchover != nil)
	fillMembers(x, in)
	fillTopology(x, in, obs, plan.Extended)
	if in.PartitionCount {
		x.PartitionMode = "Count"
		if plan.Extended != nil {
			x.Kept = append([]string{}, plan.Extended.Kept...)
		}
	}
	fillEvictionRequests(x, obs, plan.Extended)
	r.Extended = x
}

// fillEvictionRequests adds the plan's answers to the eviction requests.
func fillEvictionRequests(x *ExtendedPlan, obs planner.Observed, plan *planner.ExtendedPlan) {
	if plan == nil {
		return
	}
	for _, a := range plan.EvictionResponses {
		var who []string
		for _, r := range obs.EvictionRequests {
			if r.UID == a.UID {
				who = r.Requesters
			}
		}
		x.EvictionRequests = append(x.EvictionRequests, EvictionAnswer{Pod: a.Pod, Requesters: who, Outcome: string(a.Outcome), Message: a.Message})
	}
}

// fillPriority adds the priority rules and, from the plan, the order the
// rolling update follows.
func fillPriority(x *ExtendedPlan, in *planner.Extended, plan *planner.ExtendedPlan) {
	for _, r := range in.Priority {
		x.Priority = append(x.Priority, PriorityRule{Selector: metav1.FormatLabelSelector(r.Selector), Weight: r.Weight})
	}
	if plan == nil {
		return
	}
	for _, o := range plan.Order {
		x.Order = append(x.Order, OrderedPod{Pod: o.Pod, Weight: o.Weight, Now: o.Now, Role: o.Role})
	}
}

func fillExtendedStatus(x *ExtendedPlan, st planner.ExtendedStatus, steps []Step) {
	for _, f := range st.BlockedBy {
		x.BlockedBy = append(x.BlockedBy, Blocked{Pod: f.Pod, Revision: f.Revision, Reason: f.Reason, Message: f.Message,
			Permanent: f.Permanent, Since: f.Since.UTC()})
	}
	x.Conditions = append(x.Conditions, conditions(st.Conditions)...)
	if rb := st.Rollback; rb != nil {
		x.Rollback = &Rollback{From: rb.From, To: rb.To, Reason: rb.Reason, Time: rb.Time.UTC()}
	}
	for _, s := range steps {
		for _, a := range s.Actions {
			if strings.HasPrefix(a.Reason, selfHealingPrefix) {
				x.SelfHealed = append(x.SelfHealed, a)
			}
		}
	}
}

// ownBudgetWords says what the budget the set keeps allows now, and
// whether another budget keeps the set from creating it; "" without
// spec.disruptionBudget.
func ownBudgetWords(b *planner.BudgetPlan, read bool) string {
	switch {
	case b == nil:
		return ""
	case !read:
		return b.Words() + " (the namespace's PodDisruptionBudgets could not be listed: whether another one selects the set's pods is not known here)."
	case len(b.Foreign) > 0 && b.Exists:
		return b.Words() + "; PodDisruptionBudget " + strings.Join(b.Foreign, ", ") + " selects the set's pods too, so every eviction of a pod both select fails (condition DisruptionBudget)."
	case len(b.Foreign) > 0:
		return "not kept while PodDisruptionBudget " + strings.Join(b.Foreign, ", ") + " selects the set's pods or takes its name (condition DisruptionBudget); once it is gone: " + b.Words() + "."
	}
	return b.Words() + "."
}
