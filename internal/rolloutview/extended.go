package rolloutview

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Resources as messages name them, kubectl's way.
const (
	ResourceAppsV1   = "statefulset.apps"
	ResourceExtended = "statefulset.apps.ordinal.dev"
)

// Resource names the kind of set, a set or the apps/v1 view of an
// extended set (whose type says so).
func Resource(set *appsv1.StatefulSet) string {
	if set.APIVersion == v1alpha1.SchemeGroupVersion.String() {
		return ResourceExtended
	}
	return ResourceAppsV1
}

// ExtendedState is what the status of an extended set adds: its own
// pause, its rollout settings, the controller's conditions and the pods
// the rollout is blocked by.
type ExtendedState struct {
	Paused                  bool        `json:"paused"`
	SelfHealing             string      `json:"selfHealing"`
	OnFailure               string      `json:"onFailure"`
	ProgressDeadlineSeconds int32       `json:"progressDeadlineSeconds"`
	LastCompletedRevision   string      `json:"lastCompletedRevision,omitempty"`
	Conditions              []Condition `json:"conditions"`
	BlockedBy               []Blocked   `json:"blockedBy"`
	Rollback                *Rollback   `json:"rollback,omitempty"`
	// Hold is the failure policy's hold in force, nil without one.
	Hold *Hold `json:"hold,omitempty"`
	// Claims is, for a set whose claims follow their templates in place,
	// where each pod's claims stand, by ordinal then template.
	Claims []ClaimState `json:"claims,omitempty"`
}

// ClaimState is one claim of a pod against its template.
type ClaimState struct {
	Pod      string `json:"pod"`
	Claim    string `json:"claim"`
	Template string `json:"template"`
	// State says where the claim stands, in words (planner.ClaimProgress).
	State   string `json:"state"`
	Matches bool   `json:"matches"`
}

// Condition is one of the set's conditions.
type Condition struct {
	Type    string    `json:"type"`
	Status  string    `json:"status"`
	Reason  string    `json:"reason"`
	Message string    `json:"message,omitempty"`
	Since   time.Time `json:"since"`
}

// Blocked is a pod the rollout is blocked by, as the controller
// classified it.
type Blocked struct {
	Pod       string    `json:"pod"`
	Revision  string    `json:"revision,omitempty"`
	Reason    string    `json:"reason"`
	Message   string    `json:"message,omitempty"`
	Permanent bool      `json:"permanent"`
	Since     time.Time `json:"since"`
}

// Hold is the failure policy's hold of a failed revision: the spec still
// names it, and the set runs Revision instead (RolledBack) or stays where
// it is (Paused) until the spec's template changes or a person releases
// the hold.
type Hold struct {
	ID             string    `json:"id"`
	Action         string    `json:"action"`
	FailedRevision string    `json:"failedRevision"`
	Revision       string    `json:"revision"`
	Reason         string    `json:"reason,omitempty"`
	Time           time.Time `json:"time"`
	// Next says how to go on, in words.
	Next string `json:"next"`
}

// holdOf is h as the views show it, for set name.
func holdOf(h *planner.Hold, name string) *Hold {
	if h == nil {
		return nil
	}
	return &Hold{ID: h.ID, Action: string(h.Action), FailedRevision: h.FailedRevision, Revision: h.Revision, Reason: h.Reason,
		Time: h.Time.UTC(), Next: HoldNext(name, h.FailedRevision)}
}

// statusHold is the hold a set's status records, nil without one.
func statusHold(set *v1alpha1.StatefulSet) *planner.Hold {
	h := set.Status.Hold
	if h == nil {
		return nil
	}
	return &planner.Hold{ID: h.ID, Action: h.Action, FailedRevision: h.FailedRevision, Revision: h.Revision, Reason: h.Reason, Time: h.Time.Time}
}

// HoldNext says how a person goes on from a hold of revision failed of
// set name.
func HoldNext(name, failed string) string {
	return fmt.Sprintf("change the spec's template (a fix, or `ordinal rollout undo osts/%s`) to roll out a new revision, or run `ordinal rollout resume osts/%s` to try %s again",
		name, name, failed)
}

// HoldLine says in one line what a hold does.
func HoldLine(h *Hold) string {
	if h.Action == string(v1alpha1.HoldRolledBack) {
		return fmt.Sprintf("rolled back: revision %s failed (%s) and is held; the set runs %s, the spec is unchanged (since %s)",
			h.FailedRevision, h.Reason, h.Revision, h.Time.Format(time.RFC3339))
	}
	return fmt.Sprintf("paused: revision %s failed (%s) and is held where it is, at %s; the spec is unchanged (since %s)",
		h.FailedRevision, h.Reason, h.Revision, h.Time.Format(time.RFC3339))
}

// Rollback is the controller's last automatic rollback.
type Rollback struct {
	From   string    `json:"from"`
	To     string    `json:"to"`
	Reason string    `json:"reason,omitempty"`
	Time   time.Time `json:"time"`
}

// NewExtendedSnapshot describes an extended set: the snapshot of its
// apps/v1 view (osts.View) with the extended state, and a verdict of its
// own (kubectl has none for the kind; see extendedVerdict). Its cells are
// the set's ordinals, which skip the reserved ones (osts.Reserved) and the
// offline ones (an offline member has no pod and is not missing); claims
// are the set's claims by name, for an InPlace set's claim progress.
func NewExtendedSnapshot(view *appsv1.StatefulSet, set *v1alpha1.StatefulSet, reserved []planner.OrdinalRange,
	pods []*corev1.Pod, claims map[string]*corev1.PersistentVolumeClaim, update string,
) Snapshot {
	s := NewSnapshot(view, pods, update)
	if offline := offlineOf(set); len(reserved) > 0 || len(offline) > 0 {
		layout := planner.NewLayout(planner.StartOrdinal(view), planner.Replicas(view), reserved).Without(offline)
		s.Cells, s.MoreMissing = cellsAt(view.Name, layout, pods, s.UpdateRevision)
	}
	overrideGroups(s.Cells, set.Spec.Overrides)
	s.Extended = extendedState(set)
	markRoles(s.Cells, set, pods)
	s.Extended.Claims = claimStates(set, s.Cells, claims)
	s.Done, s.Message, s.Err = extendedVerdict(view, s.Extended.Paused)
	s.Failure = failure(s)
	if why := declaredFailure(set, s.UpdateRevision); why != "" && s.Err == "" {
		s.Failure, s.Failed, s.Done = why, true, false
		if h := s.Extended.Hold; h != nil {
			s.Message = fmt.Sprintf("roll out of revision %s held (%s): the spec's template is not rolled out", h.FailedRevision, h.Action)
		}
	}
	return s
}

// heldFailure is a hold as the failure `status` declares.
func heldFailure(h *Hold) string {
	if h.Action == string(v1alpha1.HoldRolledBack) {
		return fmt.Sprintf("rollout of revision %s failed and is held: the set runs revision %s again", h.FailedRevision, h.Revision)
	}
	return fmt.Sprintf("rollout of revision %s failed and is held paused at revision %s", h.FailedRevision, h.Revision)
}

func extendedState(set *v1alpha1.StatefulSet) *ExtendedState {
	x := &ExtendedState{SelfHealing: string(v1alpha1.SelfHealingEnabled), OnFailure: string(v1alpha1.FailureReport),
		ProgressDeadlineSeconds: deadlineSeconds(set), LastCompletedRevision: set.Status.LastCompletedRevision,
		Conditions: conditions(set.Status.Conditions), BlockedBy: []Blocked{}}
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		x.Paused = ru.Paused
		x.SelfHealing = orDefault(string(ru.SelfHealing), x.SelfHealing)
		x.OnFailure = orDefault(string(ru.OnFailure), x.OnFailure)
	}
	for _, b := range set.Status.BlockedBy {
		x.BlockedBy = append(x.BlockedBy, Blocked{Pod: b.Pod, Revision: b.Revision, Reason: b.Reason, Message: b.Message,
			Permanent: b.Permanent, Since: b.Since.UTC()})
	}
	if r := set.Status.Rollback; r != nil {
		x.Rollback = &Rollback{From: r.From, To: r.To, Reason: r.Reason, Time: r.Time.UTC()}
	}
	x.Hold = holdOf(statusHold(set), set.Name)
	return x
}

func deadlineSeconds(set *v1alpha1.StatefulSet) int32 {
	if set.Spec.ProgressDeadlineSeconds != nil {
		return *set.Spec.ProgressDeadlineSeconds
	}
	return 600
}

func conditions(in []metav1.Condition) []Condition {
	out := make([]Condition, 0, len(in))
	for _, c := range in {
		out = append(out, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message, Since: c.LastTransitionTime.UTC()})
	}
	return out
}

// extendedVerdict is kubectl's verdict rewritten for the extended kind,
// in the same order: the spec must be observed, every pod Ready, then the
// pods from the partition up updated. Recreate is followed like a rolling
// update at partition 0; a paused rollout is done where it stands, as an
// apps/v1 set paused by its partition is.
func extendedVerdict(set *appsv1.StatefulSet, paused bool) (done bool, message, errMessage string) {
	if set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return true, "", "rollout status is only available for the RollingUpdate and Recreate strategy types"
	}
	st, n := set.Status, planner.Replicas(set)
	if st.ObservedGeneration == 0 || set.Generation > st.ObservedGeneration {
		return false, "Waiting for statefulset spec update to be observed...", ""
	}
	if st.ReadyReplicas < n {
		return false, fmt.Sprintf("Waiting for %d pods to be ready...", n-st.ReadyReplicas), ""
	}
	want := max(n-planner.Partition(set), 0)
	if paused {
		return true, fmt.Sprintf("roll out paused: %d out of %d new pods have been updated...", min(st.UpdatedReplicas, want), want), ""
	}
	if st.UpdatedReplicas < want {
		return false, fmt.Sprintf("Waiting for roll out to finish: %d out of %d new pods have been updated...", st.UpdatedReplicas, want), ""
	}
	return true, fmt.Sprintf("roll out complete: %d new pods have been updated...", st.UpdatedReplicas), ""
}

// declaredFailure is the controller's word that the rollout failed, for
// the spec it has observed: a hold of the failure policy, Progressing
// False (a permanent pod failure, or the progress deadline), an automatic
// rollback under way, or a permanent failure of a pod at the update
// revision.
func declaredFailure(set *v1alpha1.StatefulSet, update string) string {
	if set.Status.ObservedGeneration < set.Generation {
		return ""
	}
	if h := holdOf(statusHold(set), set.Name); h != nil {
		return heldFailure(h)
	}
	for _, c := range set.Status.Conditions {
		switch {
		case c.Type != v1alpha1.ConditionProgressing:
		case c.Status == metav1.ConditionFalse:
			return fmt.Sprintf("rollout failed (%s): %s", c.Reason, c.Message)
		case c.Reason == planner.ReasonRollingBack:
			return "rollout failed and is being rolled back: " + c.Message
		}
	}
	for _, b := range set.Status.BlockedBy {
		if b.Permanent && b.Revision == update && update != set.Status.LastCompletedRevision {
			return fmt.Sprintf("rollout failed: %s (revision %s) is %s: %s", b.Pod, b.Revision, b.Reason, b.Message)
		}
	}
	return ""
}

// claimStates describes each cell's claims of an InPlace set; nil for a
// set whose claims change only when recreated.
func claimStates(set *v1alpha1.StatefulSet, cells []Cell, claims map[string]*corev1.PersistentVolumeClaim) []ClaimState {
	if set.Spec.VolumeClaimUpdateStrategy.Type != v1alpha1.InPlaceVolumeClaimUpdateStrategyType || claims == nil {
		return nil
	}
	var out []ClaimState
	for _, c := range cells {
		ord := c.Ordinal
		for i := range set.Spec.VolumeClaimTemplates {
			tmpl := &set.Spec.VolumeClaimTemplates[i]
			name := planner.ClaimName(tmpl.Name, set.Name, ord)
			state, matches := planner.ClaimProgress(claims[name], tmpl)
			out = append(out, ClaimState{Pod: c.Pod, Claim: name, Template: tmpl.Name, State: state, Matches: matches})
		}
	}
	return out
}

// overrideGroups names on each cell the override that lists its ordinal.
func overrideGroups(cells []Cell, list []v1alpha1.OrdinalOverride) {
	if len(list) == 0 {
		return
	}
	read, _ := planner.ReadOverrides(list)
	for i := range cells {
		if j := planner.OverrideAt(read, cells[i].Ordinal); j >= 0 {
			cells[i].Group = read[j].Spec.Name
		}
	}
}
