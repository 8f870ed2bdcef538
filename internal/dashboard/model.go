package dashboard

import (
	"bytes"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// StateReserved is the state of a cell whose ordinal the set reserves
// (see Reserver); view's states cover everything else.
const StateReserved = "reserved"

// Health words of the list page, worst first.
const (
	HealthFailing     = "failing"
	HealthPaused      = "paused"
	HealthProgressing = "progressing"
	HealthComplete    = "complete"
)

// Summary is one set on the list page.
type Summary struct {
	Kind            string         `json:"kind"`
	Namespace       string         `json:"namespace"`
	Name            string         `json:"name"`
	Strategy        string         `json:"strategy"`
	Replicas        int32          `json:"replicas"`
	Ready           int32          `json:"ready"`
	Updated         int            `json:"updated"`
	CurrentRevision string         `json:"currentRevision"`
	UpdateRevision  string         `json:"updateRevision"`
	Health          string         `json:"health"`
	Message         string         `json:"message"`
	Failure         string         `json:"failure,omitempty"`
	States          map[string]int `json:"states"`
}

// Detail is everything the page of one set shows.
type Detail struct {
	Summary       Summary              `json:"summary"`
	Actions       ActionSet            `json:"actions"`
	Status        rolloutview.Snapshot `json:"status"`
	PartitionLine string               `json:"partitionLine"`
	Revisions     []Revision           `json:"revisions"`
	Plan          string               `json:"plan"`
	PlanError     string               `json:"planError,omitempty"`
	Claims        []ClaimRow           `json:"claims"`
	Events        []EventRow           `json:"events"`
}

// ActionSet says which actions the page offers for a set now; all false
// in read-only mode.
type ActionSet struct {
	Pause     bool `json:"pause"`
	Resume    bool `json:"resume"`
	Undo      bool `json:"undo"`
	Restart   bool `json:"restart"`
	DeletePod bool `json:"deletePod"`
}

// Revision is a history entry with the colour its cells get.
type Revision struct {
	rolloutview.Entry
	Colour int `json:"colour"`
}

// palette is how many revision colours the style sheet defines.
const palette = 8

// observed is one set as the cache holds it.
type observed struct {
	kind Kind
	obj  any
	setops.Observed
	events []*corev1.Event
}

// snapshot is the status view of o with reserved ordinals marked.
func snapshot(o observed) rolloutview.Snapshot {
	update, err := setops.PendingUpdate(o.Set, o.Revisions, setops.RevisionOptions(o.Extended))
	if err != nil {
		update = ""
	}
	s := setops.Snapshot(o.Observed, update)
	if r, ok := o.kind.(Reserver); ok {
		s.Cells = markReserved(s.Cells, r.Reserved(o.obj), o.Set.Name)
	}
	return s
}

// markReserved gives reserved ordinals without a pod the reserved state,
// adding cells for those outside the listed range.
func markReserved(cells []rolloutview.Cell, reserved []int32, setName string) []rolloutview.Cell {
	at := make(map[int32]int, len(cells))
	for i, c := range cells {
		at[c.Ordinal] = i
	}
	for _, ord := range reserved {
		i, ok := at[ord]
		switch {
		case !ok:
			cells = append(cells, rolloutview.Cell{Ordinal: ord, Pod: setName + "-" + strconv.Itoa(int(ord)), State: StateReserved})
		case cells[i].State == rolloutview.StateMissing:
			cells[i].State = StateReserved
		}
	}
	slices.SortStableFunc(cells, func(a, b rolloutview.Cell) int { return int(a.Ordinal - b.Ordinal) })
	return cells
}

func summarize(kind string, s rolloutview.Snapshot) Summary {
	sum := Summary{
		Kind: kind, Namespace: s.Namespace, Name: s.Name, Strategy: s.Strategy,
		Replicas: s.Replicas, Ready: s.ReadyReplicas,
		CurrentRevision: s.CurrentRevision, UpdateRevision: s.UpdateRevision,
		Message: s.Message, Failure: s.Failure, States: map[string]int{},
	}
	if sum.Message == "" {
		sum.Message = s.Err
	}
	for _, c := range s.Cells {
		sum.States[c.State]++
	}
	if s.MoreMissing > 0 {
		sum.States[rolloutview.StateMissing] += int(s.MoreMissing)
	}
	// Reserved cells lie among the set's ordinals (see Reserver), so its
	// pods reach that many ordinals further; pods above are condemned.
	end := s.StartOrdinal + s.Replicas + int32(sum.States[StateReserved])
	for _, c := range s.Cells {
		if c.Updated && c.Ordinal < end {
			sum.Updated++
		}
	}
	sum.Health = health(s, sum)
	return sum
}

func health(s rolloutview.Snapshot, sum Summary) string {
	switch {
	case s.Failure != "" || sum.States[rolloutview.StateFailing] > 0:
		return HealthFailing
	case s.PausedPartition != "" || s.Extended != nil && s.Extended.Paused:
		return HealthPaused
	case s.Done && s.MoreMissing == 0 && sum.States[rolloutview.StateReady]+sum.States[StateReserved] == len(s.Cells) && s.CurrentRevision == s.UpdateRevision:
		return HealthComplete
	}
	return HealthProgressing
}

// detail builds the page of one set at now.
func detail(o observed, readOnly bool, now time.Time) Detail {
	s := snapshot(o)
	d := Detail{
		Summary: summarize(o.kind.Name(), s), Status: s, PartitionLine: rolloutview.PartitionLine(s),
		Revisions: revisions(o, s),
		Claims:    claimRows(o.Set, s.Cells, o.Claims),
	}
	d.Events = timeline(o.Set, o.kind.GroupKind().Kind, o.events, d.Claims)
	if !readOnly {
		d.Actions = actions(o)
	}
	report, err := setops.PlanReport(o.Observed, now)
	if err != nil {
		d.PlanError = err.Error()
	} else {
		var b bytes.Buffer
		rolloutview.RenderPlan(&b, report, now)
		d.Plan = b.String()
	}
	return d
}

// revisions numbers colours by position in the history, oldest first, so
// a rollout's two revisions keep their colours while it runs.
func revisions(o observed, s rolloutview.Snapshot) []Revision {
	entries := rolloutview.NewHistory(o.Set, o.Revisions, o.Pods, setops.HeldRevision(o.Extended))
	out := make([]Revision, 0, len(entries))
	for i, e := range entries {
		e.Update = e.Name == s.UpdateRevision
		out = append(out, Revision{Entry: e, Colour: i % palette})
	}
	return out
}

func actions(o observed) ActionSet {
	rolling := o.Set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType
	_, paused := o.Set.Annotations[v1alpha1.PausedAnnotation]
	held := false
	if x := o.Extended; x != nil {
		paused = x.Spec.UpdateStrategy.RollingUpdate != nil && x.Spec.UpdateStrategy.RollingUpdate.Paused
		held = x.Status.Hold != nil // resume releases it
	}
	_, deletes := o.kind.(PodDeleter)
	return ActionSet{
		Pause: rolling && !paused, Resume: paused || held, Undo: len(o.Revisions) > 1,
		Restart: true, DeletePod: deletes,
	}
}
