package rolloutview

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// renderExtendedPlan says, for an extended set, what its rollout safety
// does next: self-healing, the progress deadline, the failure policy, the
// hold in force and what the plan records about holds now, then the pods
// the rollout is blocked by and the conditions the controller would
// write.
func renderExtendedPlan(w io.Writer, r PlanReport, now time.Time) {
	x := r.Extended
	fmt.Fprintln(w, "Rollout safety:")
	if x.Paused {
		field(w, "paused", fmt.Sprintf("yes: no pod is updated until `ordinal rollout resume osts/%s`; scaling still works.", r.Name))
	}
	field(w, "self-healing", selfHealingWords(r))
	field(w, "progress deadline", deadlineWords(r, now))
	field(w, "on failure", failureWords(r))
	field(w, "budgets", budgetWords(x.DisruptionBudgets))
	if x.OwnBudget != "" {
		field(w, "own budget", x.OwnBudget)
	}
	if x.RolloutGroup != "" {
		field(w, "rollout group", x.RolloutGroup+": "+x.GroupTurn)
	}
	if len(x.Priority) > 0 {
		field(w, "priority", priorityWords(x.Priority))
	}
	if x.Roles != nil {
		field(w, "roles", rolesWords(x.Roles))
	}
	if len(x.Priority) > 0 || x.Roles != nil {
		field(w, "update order", orderWords(r))
	}
	if len(x.MemberHooks) > 0 {
		field(w, "member join", memberJoinWords(x.MemberHooks))
	}
	if len(x.Offline) > 0 {
		field(w, "offline members", offlineWords(x.Offline))
	}
	if x.ConfigReload != "" {
		field(w, "config reload", x.ConfigReload)
	}
	if x.PartitionMode == "Count" {
		field(w, "partition", countPartitionWords(r))
	}
	if t := x.Topology; t != nil {
		field(w, "topology", topologyWords(t))
		for i, d := range t.Domains {
			label := "domains"
			if i > 0 {
				label = ""
			}
			field(w, label, domainWords(d))
		}
	}
	for i, a := range x.EvictionRequests {
		label := "eviction requests"
		if i > 0 {
			label = ""
		}
		field(w, label, evictionWords(a))
	}
	if rb := x.Rollback; rb != nil {
		field(w, "last rollback", fmt.Sprintf("from %s to %s at %s: %s", rb.From, rb.To, rb.Time.Format(time.RFC3339), rb.Reason))
	}
	if h := x.Hold; h != nil {
		field(w, "held", HoldLine(h))
		field(w, "to go on", h.Next+".")
	}
	if x.Now != "" {
		field(w, "now", x.Now)
	}
	for i, b := range x.BlockedBy {
		label := "blocked by"
		if i > 0 {
			label = ""
		}
		field(w, label, BlockedLine(b))
	}
	if len(x.Conditions) > 0 {
		fmt.Fprintln(w, "  conditions the controller writes:")
		var b strings.Builder
		renderConditions(&b, x.Conditions)
		for _, line := range strings.SplitAfter(b.String(), "\n") {
			if line != "" {
				fmt.Fprint(w, "  "+line)
			}
		}
	}
}

// field writes one labelled line of the rollout safety section.
func field(w io.Writer, label, text string) {
	if label != "" {
		label += ":"
	}
	fmt.Fprintf(w, "  %-19s%s\n", label, text)
}

func selfHealingWords(r PlanReport) string {
	x := r.Extended
	switch {
	case !x.SelfHealing:
		for _, wt := range r.Waits {
			if wt.Revision != "" && wt.Revision != r.Update.Name {
				return fmt.Sprintf("Disabled: %s runs old revision %s and is %s; it holds the rollout until it is deleted, as in apps/v1.", wt.Pod, wt.Revision, wt.State)
			}
		}
		return "Disabled: broken pods of an old revision are left to the rolling update, as in apps/v1."
	case x.Paused:
		return "Enabled, idle while the rollout is paused."
	case x.Recreate:
		return "Enabled, idle under Recreate, which replaces every pod anyway."
	case r.Strategy == "OnDelete":
		return "Enabled, idle under OnDelete, where pods change only when you delete them."
	case len(x.SelfHealed) > 0:
		var out []string
		for _, a := range x.SelfHealed {
			out = append(out, fmt.Sprintf("deletes %s now: %s", strings.TrimPrefix(a.Object, "Pod/"), strings.TrimSpace(strings.TrimPrefix(a.Reason, selfHealingPrefix))))
		}
		return "Enabled: " + strings.Join(out, "; ") + "."
	}
	return "Enabled: no pod of an old revision is broken; nothing to replace."
}

func deadlineWords(r PlanReport, now time.Time) string {
	x := r.Extended
	d := fmt.Sprintf("%ds", x.ProgressDeadlineSeconds)
	switch {
	case !x.Rolling:
		return fmt.Sprintf("%s, not running: revision %s is rolled out.", d, r.Update.Name)
	case x.Paused:
		return d + ", not running while the rollout is paused."
	case x.AtPartition:
		return d + ", not running: every pod at or above the partition is updated; lower the partition to go on."
	case x.Deadline == nil:
		return d + ", starts at the controller's next sync."
	case !now.Before(*x.Deadline):
		return fmt.Sprintf("%s, passed %s ago (at %s): the rollout has failed.", d, Age(now.Sub(*x.Deadline)), x.Deadline.Format(time.RFC3339))
	}
	return fmt.Sprintf("%s: last progress %s ago (%s); passes in %s (at %s) unless a pod at %s is created or becomes Available.",
		d, Age(now.Sub(*x.LastProgress)), x.LastProgress.Format(time.RFC3339), Age(x.Deadline.Sub(now)), x.Deadline.Format(time.RFC3339), r.Update.Name)
}

func failureWords(r PlanReport) string {
	x := r.Extended
	switch x.OnFailure {
	case "Pause":
		return fmt.Sprintf("Pause: a failed rollout is held where it is (status.hold); the spec is not changed, and no further pod is updated until its template changes or `ordinal rollout resume osts/%s` releases the hold.", r.Name)
	case "Rollback":
		return rollbackWords(r)
	}
	return "Report: a failed rollout (a pod at the update revision failing permanently, or the deadline passing) is reported in conditions, events and status.blockedBy; nothing is changed."
}

func rollbackWords(r PlanReport) string {
	x, update := r.Extended, r.Update.Name
	switch {
	case x.Hold != nil && x.Hold.Action == "RolledBack":
		return fmt.Sprintf("Rollback: %s failed and is held; the set runs %s, so if that fails too it is held paused instead of rolling back again.", x.Hold.FailedRevision, x.Hold.Revision)
	case !x.Rolling:
		return fmt.Sprintf("Rollback: a failed rollout of a new template is held, and the set runs %s, the last completed revision, again; the spec is not changed.", update)
	case x.Rollback != nil && x.Rollback.To == update:
		return fmt.Sprintf("Rollback: %s is itself a rollback (from %s), so if it fails it is held paused instead of rolling back again.", update, x.Rollback.From)
	case x.LastCompletedRevision == "":
		return "Rollback: no earlier revision completed, so a failure holds the rollout paused instead."
	}
	return fmt.Sprintf("Rollback: a failure is held, and the set runs %s, the last completed revision, again; the spec is not changed, and self-healing replaces the broken pods.", x.LastCompletedRevision)
}

func priorityWords(rules []PriorityRule) string {
	var out []string
	for _, r := range rules {
		out = append(out, fmt.Sprintf("%s %+d", r.Selector, r.Weight))
	}
	return strings.Join(out, "; ") + ". A pod weighs the sum of the rules that match its labels; higher weights are replaced first, equal weights highest ordinal first."
}

// orderWords lists the old-revision pods in the order the rolling update
// replaces them.
func orderWords(r PlanReport) string {
	x := r.Extended
	switch {
	case r.Strategy == "OnDelete":
		return "none: under OnDelete pods change only when you delete them."
	case len(x.Order) == 0:
		return "none: no pod at or above the partition runs an old revision."
	}
	var out []string
	for _, o := range x.Order {
		var notes []string
		if o.Role != "" {
			notes = append(notes, o.Role)
		}
		if len(x.Priority) > 0 {
			notes = append(notes, fmt.Sprintf("%+d", o.Weight))
		}
		if o.Now {
			notes = append(notes, "now")
		}
		s := o.Pod
		if len(notes) > 0 {
			s += " (" + strings.Join(notes, ", ") + ")"
		}
		out = append(out, s)
	}
	words := strings.Join(out, ", ")
	if x.Paused {
		words += ", once the rollout resumes"
	}
	return words + "."
}

// budgetWords says how the rollout's removals meet PodDisruptionBudgets.
func budgetWords(respect bool) string {
	if !respect {
		return "not asked (respectDisruptionBudgets false): pods are deleted, as apps/v1 deletes them."
	}
	return "respected: the pods the update, a delete request or a reserved ordinal removes are evicted (EvictPod); a budget that allows no disruption holds them, and status.blockedBy says which."
}

// evictionWords is one answer to an eviction request: "db-0 (asked by
// ordinal.dev/node-drain): moving: moving db-0 off node-3 (cordoned)".
func evictionWords(a EvictionAnswer) string {
	who := ""
	if len(a.Requesters) > 0 {
		who = " (asked by " + strings.Join(a.Requesters, ", ") + ")"
	}
	return fmt.Sprintf("%s%s: %s: %s", a.Pod, who, strings.ToLower(a.Outcome), a.Message)
}
