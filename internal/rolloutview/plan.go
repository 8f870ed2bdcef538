package rolloutview

import (
	"fmt"
	"io"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// PlanReport is what `plan` prints: the planner's output for the live
// state, with objects reduced to names so it reads well as JSON or YAML.
type PlanReport struct {
	Resource            string `json:"resource"`
	Namespace           string `json:"namespace"`
	Name                string `json:"name"`
	PodManagementPolicy string `json:"podManagementPolicy"`
	Strategy            string `json:"strategy"`
	Replicas            int32  `json:"replicas"`
	Partition           *int32 `json:"partition,omitempty"`
	PausedPartition     string `json:"pausedPartition,omitempty"`
	Current             RevRef `json:"currentRevision"`
	Update              RevRef `json:"updateRevision"`
	// Held is the revision of the spec's template while the failure
	// policy holds it and the set rolls to Update instead; nil otherwise.
	Held          *RevRef `json:"heldRevision,omitempty"`
	RevisionWrite string  `json:"revisionWrite"`
	Steps         []Step  `json:"steps"`
	Waits         []Wait  `json:"waits"`
	Warnings      []Warn  `json:"warnings"`
	Status        Summary `json:"status"`
	// Extended is what the extended kind's rollout safety will do; nil
	// for apps/v1 (see ExtendPlan).
	Extended *ExtendedPlan `json:"extended,omitempty"`

	// Truncated says the replica pass stops after planner.MaxCreates new
	// pods this sync; the next sync goes on with the rest.
	Truncated bool `json:"truncated,omitempty"`
	// numbers maps revision names to their numbers, for the text view.
	numbers map[string]int64
}

// RevRef names a revision and its number; Was is the number before a
// rollback renumbers it (zero otherwise).
type RevRef struct {
	Name     string `json:"name"`
	Revision int64  `json:"revision"`
	Was      int64  `json:"was,omitempty"`
}

// Step is a planner step with its actions.
type Step struct {
	Name    string   `json:"name"`
	Burst   bool     `json:"burst"`
	Actions []Action `json:"actions"`
}

// Action is one planned API call.
type Action struct {
	Kind    string `json:"kind"`
	Ordinal int32  `json:"ordinal"`
	Object  string `json:"object"`
	Reason  string `json:"reason"`
}

// Wait is one thing the rollout waits for.
type Wait struct {
	Ordinal  int32      `json:"ordinal"`
	Pod      string     `json:"pod"`
	Revision string     `json:"revision"`
	State    string     `json:"state"`
	Since    *time.Time `json:"since,omitempty"`
	Policy   string     `json:"policy"`
	Hint     string     `json:"hint,omitempty"`
}

// Warn is a planner warning.
type Warn struct {
	Reason  string `json:"reason"`
	Object  string `json:"object"`
	Message string `json:"message"`
}

// Summary is the status the controller would write.
type Summary struct {
	Replicas        int32 `json:"replicas"`
	ReadyReplicas   int32 `json:"readyReplicas"`
	CurrentReplicas int32 `json:"currentReplicas"`
	UpdatedReplicas int32 `json:"updatedReplicas"`
}

// NewPlanReport describes plan, computed for set from res. revisions are
// the stored ones, used to number revisions and to tell a rollback's old
// number.
func NewPlanReport(set *appsv1.StatefulSet, res revision.Resolution, revisions []*appsv1.ControllerRevision, plan planner.Plan) PlanReport {
	r := PlanReport{
		Resource: Resource(set), Namespace: set.Namespace, Name: set.Name,
		PodManagementPolicy: string(set.Spec.PodManagementPolicy), Strategy: string(set.Spec.UpdateStrategy.Type),
		Replicas: planner.Replicas(set), PausedPartition: set.Annotations[v1alpha1.PausedAnnotation],
		Current: ref(res.Current), Update: ref(res.Update), RevisionWrite: res.Write.String(),
		Steps: []Step{}, Truncated: plan.Truncated, Waits: []Wait{}, Warnings: []Warn{}, numbers: map[string]int64{},
		Status: Summary{plan.Status.Replicas, plan.Status.ReadyReplicas, plan.Status.CurrentReplicas, plan.Status.UpdatedReplicas},
	}
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		p := *ru.Partition
		r.Partition = &p
	}
	for _, rev := range revisions {
		r.numbers[rev.Name] = rev.Revision
		if res.Write == revision.WriteBump && rev.Name == res.Update.Name {
			r.Update.Was = rev.Revision
		}
	}
	if target := plan.Status.UpdateRevision; target != "" && res.Update != nil && target != r.Update.Name {
		// A hold runs another revision than the spec's.
		held := r.Update
		r.Held, r.Update = &held, RevRef{Name: target, Revision: r.numbers[target]}
	}
	for _, s := range plan.Steps {
		r.Steps = append(r.Steps, newStep(s))
	}
	for _, w := range plan.Waits {
		r.Waits = append(r.Waits, newWait(w))
	}
	for _, w := range plan.Warnings {
		r.Warnings = append(r.Warnings, Warn{Reason: w.Reason, Object: w.Object, Message: w.Message})
	}
	return r
}

func ref(rev *appsv1.ControllerRevision) RevRef {
	if rev == nil {
		return RevRef{}
	}
	return RevRef{Name: rev.Name, Revision: rev.Revision}
}

func newStep(s planner.Step) Step {
	out := Step{Name: s.Name, Burst: s.Burst, Actions: []Action{}}
	for _, a := range s.Actions {
		obj := ""
		switch {
		case a.Claim != nil:
			obj = "PersistentVolumeClaim/" + a.Claim.Name
		case a.Pod != nil:
			obj = "Pod/" + a.Pod.Name
		}
		out.Actions = append(out.Actions, Action{Kind: actionKind(a), Ordinal: a.Ordinal, Object: obj, Reason: a.Reason})
	}
	return out
}

// ActionEvictPod is how a plan shows a pod delete made through the
// Eviction API, which PodDisruptionBudgets may refuse.
const ActionEvictPod = "EvictPod"

// actionKind is the action's kind as the plan shows it.
func actionKind(a planner.Action) string {
	if a.Kind == planner.DeletePod && a.Evict {
		return ActionEvictPod
	}
	return string(a.Kind)
}

func newWait(w planner.Wait) Wait {
	out := Wait{Ordinal: w.Ordinal, Pod: w.Pod, Revision: w.Revision, State: w.State, Policy: w.Policy, Hint: w.Hint}
	if !w.Since.IsZero() {
		t := w.Since.UTC()
		out.Since = &t
	}
	return out
}

// RenderPlan explains r in plain words. now dates the waits ("for 2m").
func RenderPlan(w io.Writer, r PlanReport, now time.Time) {
	fmt.Fprintf(w, "%s/%s: %d replicas, %s, %s%s\n", orDefault(r.Resource, ResourceAppsV1), r.Name, r.Replicas,
		orDefault(r.PodManagementPolicy, "OrderedReady"), r.Strategy, partitionSuffix(r))
	renderRevisions(w, r)
	renderSteps(w, r.Steps)
	if r.Truncated {
		fmt.Fprintf(w, "The replica pass stops here: a sync builds at most %d missing pods, finishing its slow-start batch; the next sync goes on with the rest.\n", planner.MaxCreates)
	}
	for _, wt := range r.Waits {
		renderWait(w, r, wt, now)
	}
	if r.Extended != nil {
		renderExtendedPlan(w, r, now)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w, "Warnings:")
		for _, wn := range r.Warnings {
			fmt.Fprintf(w, "  %s %s: %s\n", wn.Reason, wn.Object, wn.Message)
		}
	}
}

func partitionSuffix(r PlanReport) string {
	if r.Partition == nil {
		return ""
	}
	s := fmt.Sprintf(", partition %d", *r.Partition)
	if r.PausedPartition != "" {
		s += fmt.Sprintf(" (paused by ordinal rollout pause; resume restores %s)", r.PausedPartition)
	}
	return s
}

func renderRevisions(w io.Writer, r PlanReport) {
	if r.Current.Name == r.Update.Name {
		fmt.Fprintf(w, "Revision: %s (#%d), current and update\n", r.Update.Name, r.Update.Revision)
	} else {
		fmt.Fprintf(w, "Revisions: current %s (#%d), update %s (#%d)\n", r.Current.Name, r.Current.Revision, r.Update.Name, r.Update.Revision)
	}
	if h := r.Held; h != nil {
		fmt.Fprintf(w, "Held: the spec's revision %s (#%d) failed to roll out; the failure policy holds it, and the set rolls to %s instead.\n", h.Name, h.Revision, r.Update.Name)
	}
	switch r.RevisionWrite {
	case revision.WriteCreate.String():
		fmt.Fprintf(w, "The update revision %s does not exist yet: the controller creates it as #%d on its next sync.\n", r.Update.Name, r.Update.Revision)
	case revision.WriteBump.String():
		fmt.Fprintf(w, "The template matches the older revision %s (#%d): the controller renumbers it #%d (a rollback) instead of creating a revision.\n",
			r.Update.Name, r.Update.Was, r.Update.Revision)
	}
}

// MaxListedActions bounds the actions the text of a plan lists for one
// step; the rest are counted ("… and 2000 more"), so a scale-down of
// thousands of pods reads in one screen. JSON and YAML list them all.
const MaxListedActions = 20

func renderSteps(w io.Writer, steps []Step) {
	if len(steps) == 0 {
		fmt.Fprintln(w, "Next actions: none.")
		return
	}
	fmt.Fprintln(w, "Next actions (this command changes nothing):")
	n := 0
	for _, s := range steps {
		mode := "in order"
		if s.Burst {
			mode = "concurrently"
		}
		fmt.Fprintf(w, "  step %q (%s):\n", s.Name, mode)
		for _, a := range s.Actions[:min(len(s.Actions), MaxListedActions)] {
			n++
			fmt.Fprintf(w, "    %d. %s %s: %s\n", n, a.Kind, a.Object, a.Reason)
		}
		if more := len(s.Actions) - MaxListedActions; more > 0 {
			n += more
			fmt.Fprintf(w, "    … and %d more\n", more)
		}
	}
}

func renderWait(w io.Writer, r PlanReport, wt Wait, now time.Time) {
	fmt.Fprintf(w, "Waiting on %s (ordinal %d):\n", wt.Pod, wt.Ordinal)
	fmt.Fprintf(w, "  revision: %s\n", revisionWords(r, wt.Revision))
	state := wt.State
	if wt.Since != nil {
		state += fmt.Sprintf(" for %s (since %s)", Age(now.Sub(*wt.Since)), wt.Since.Format(time.RFC3339))
	}
	fmt.Fprintf(w, "  state:    %s\n", state)
	fmt.Fprintf(w, "  policy:   %s\n", wt.Policy)
	if wt.Hint != "" {
		fmt.Fprintf(w, "  to do:    %s\n", wt.Hint)
	}
}

// revisionWords names a pod's revision and its role in the rollout.
func revisionWords(r PlanReport, name string) string {
	switch {
	case name == "":
		return "none"
	case name == r.Update.Name && name == r.Current.Name:
		return fmt.Sprintf("%s (#%d, current and update)", name, r.Update.Revision)
	case name == r.Update.Name:
		return fmt.Sprintf("%s (#%d, the update revision)", name, r.Update.Revision)
	case name == r.Current.Name:
		return fmt.Sprintf("%s (#%d, the current revision, not the update revision %s)", name, r.Current.Revision, r.Update.Name)
	}
	if n, ok := r.numbers[name]; ok {
		return fmt.Sprintf("%s (#%d, not the update revision %s)", name, n, r.Update.Name)
	}
	return fmt.Sprintf("%s (not in the history; the update revision is %s)", name, r.Update.Name)
}
