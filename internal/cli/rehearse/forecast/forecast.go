package forecast

import "github.com/ordinal-sh/ordinal/internal/cli/rehearse/learn"

// Seconds is a duration that reads as seconds in JSON.
type Seconds = learn.Seconds

// Outcome is how a rehearsed rollout ended.
type Outcome string

const (
	// Completed means every pod runs the new revision, Ready (and Available).
	Completed Outcome = "completed"
	// RolledBack means the controller rolled the set back on its own and every
	// pod runs the revision it started from again.
	RolledBack Outcome = "rolled back"
	// Paused means the controller paused the rollout on its own.
	Paused Outcome = "paused"
	// Stuck means nothing moved for the stuck window; the rollout waits for a
	// person.
	Stuck Outcome = "stuck"
	// TimedOut means the run's time ran out while the rollout still moved.
	TimedOut Outcome = "timed out"
	// NoChange means the change made no new revision, so nothing rolled.
	NoChange Outcome = "no change"
)

// Forecast is a rehearsal's result: what was copied, learned and
// changed, and one run per controller.
type Forecast struct {
	Set SetInfo `json:"set"`
	// Change says what the rehearsal changed, a line per change.
	Change []string `json:"change"`
	// NewRevisionFails is the behaviour the new revision's pods played
	// (never-ready, crash-loop, …); "" when they played their timings.
	NewRevisionFails string `json:"newRevisionFails,omitempty"`
	// Learned are the timings the copy's pods played.
	Learned learn.Timings `json:"learned"`
	// Source counts the requests the rehearsal sent to the source cluster.
	Source Requests `json:"sourceRequests"`
	Runs   []Run    `json:"runs"`
	// Verdict is one line to paste into a change ticket.
	Verdict string `json:"verdict"`
	// Notes say what the copy could not carry over, or carried
	// differently.
	Notes []string `json:"notes,omitempty"`
}

// SetInfo names the rehearsed set and its rollout settings.
type SetInfo struct {
	Context             string `json:"context,omitempty"`
	Namespace           string `json:"namespace"`
	Name                string `json:"name"`
	Kind                string `json:"kind"`
	Replicas            int32  `json:"replicas"`
	PodManagementPolicy string `json:"podManagementPolicy"`
	Strategy            string `json:"strategy"`
	// ServerVersion is the source's Kubernetes version.
	ServerVersion string `json:"serverVersion,omitempty"`
}

// Requests counts API requests by verb (get, list, watch, create,
// update, patch, delete).
type Requests struct {
	Reads  int            `json:"reads"`
	Writes int            `json:"writes"`
	ByVerb map[string]int `json:"byVerb"`
}

// Run is one controller's rollout of the change.
type Run struct {
	// Controller is "built-in", "ordinal" or "ordinal-extended".
	Controller string `json:"controller"`
	// Kind is the set's apiVersion in this run.
	Kind    string  `json:"kind"`
	Outcome Outcome `json:"outcome"`
	// Seconds is from the change to the outcome: the last pod Ready at
	// the new revision, back at the old one after a rollback, or the last
	// move before the rollout stuck or paused.
	Seconds  Seconds `json:"seconds"`
	Replicas int32   `json:"replicas"`
	// MinReadySeconds is the set's: a pod is Available that long after
	// it is Ready.
	MinReadySeconds int32 `json:"minReadySeconds"`
	// From and To are the revision the run started at and the one the
	// change made.
	From string `json:"fromRevision"`
	To   string `json:"toRevision"`
	// MinReady and MinAvailable are the fewest Ready and Available pods
	// at any moment of the run.
	MinReady     int `json:"minReady"`
	MinAvailable int `json:"minAvailable"`
	// Budgets are the PodDisruptionBudgets of the copy, kept or broken.
	Budgets []Budget `json:"budgets,omitempty"`
	Waits   []Wait   `json:"waits"`
	// Writes are the controller's API writes during the run (pods, status,
	// revisions, events, evictions, the set's spec).
	Writes      []Write `json:"writes"`
	WritesTotal int     `json:"writesTotal"`
	// StuckAt is the pod the rollout waited for when it stuck, and why.
	StuckAt *Wait `json:"stuckAt,omitempty"`
	// Events are the notable events the controller recorded on the set
	// (RolledBack, RolloutPaused, ProgressDeadlineExceeded, …).
	Events []Event  `json:"events,omitempty"`
	Pods   []Track  `json:"pods"`
	Notes  []string `json:"notes,omitempty"`
}

// Wait is a span in which the rollout waited for a pod, and why (the
// planner's words).
type Wait struct {
	From     Seconds `json:"from"`
	To       Seconds `json:"to"`
	Pod      string  `json:"pod"`
	Category string  `json:"category"`
	Why      string  `json:"why"`
}

// Write counts one kind of write: a verb on a resource.
type Write struct {
	Verb     string `json:"verb"`
	Resource string `json:"resource"`
	Count    int    `json:"count"`
}

// Budget is one PodDisruptionBudget's fate in a run.
type Budget struct {
	Name string `json:"name"`
	// Needs is how many of the set's pods it wants healthy (Ready).
	Needs int `json:"needs"`
	// MinHealthy is the fewest Ready pods of the run.
	MinHealthy int `json:"minHealthy"`
	// Below is how long the run had fewer than Needs.
	Below Seconds `json:"belowSeconds"`
}

// Kept says whether the run never went below the budget.
func (b Budget) Kept() bool { return b.Below == 0 }

// Event is an event the controller recorded on the set.
type Event struct {
	At      Seconds `json:"at"`
	Reason  string  `json:"reason"`
	Message string  `json:"message"`
}

// Track is one ordinal's pods over the run.
type Track struct {
	Pod      string    `json:"pod"`
	Ordinal  int32     `json:"ordinal"`
	Segments []Segment `json:"segments"`
}

// State is a pod's state in a segment.
type State string

const (
	// Starting is a pod that exists and is not Ready.
	Starting State = "starting"
	// Ready is a pod that is Ready.
	Ready State = "ready"
	// Terminating is a pod that is being deleted.
	Terminating State = "terminating"
)

// Segment is a span in which a pod kept one revision and state. Before
// says the pod was already in that state when the run began.
type Segment struct {
	From     Seconds `json:"from"`
	To       Seconds `json:"to"`
	Revision string  `json:"revision"`
	State    State   `json:"state"`
	Before   bool    `json:"before,omitempty"`
}
