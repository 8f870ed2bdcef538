package play

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/forecast"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/shape"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// observation is one run's view of the rollout after the change.
type observation struct {
	stage *Stage
	ns    string
	set   shape.Set
	pods  *pods
	t0    time.Time
	gen   int64

	from, to   string
	observed   bool
	rolledBack bool
	paused     bool
	plans      []forecast.PlanSample
	events     map[string]forecast.Event
	end        time.Duration
}

// until samples the rollout every samplePeriod until Judge ends it.
func (o *observation) until(ctx context.Context, l forecast.Limits, done *controllerRun) (forecast.Outcome, error) {
	tick := time.NewTicker(samplePeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-done.stopped:
			return "", fmt.Errorf("%w: %w", errStopped, done.err)
		case err := <-o.stage.plane.Err():
			return "", err
		case <-tick.C:
		}
		now := time.Now()
		o.sample(ctx, now)
		_, moved := o.pods.result()
		m := forecast.Moment{
			Since: now.Sub(o.t0), Moved: moved, Observed: o.observed, From: o.from, To: o.to,
			Settled:    o.pods.settled(replicas(o.set), partition(o.set), minReady(o.set), now),
			RolledBack: o.rolledBack, Paused: o.paused,
		}
		if outcome, ok := forecast.Judge(m, l); ok {
			o.end = m.Since
			return outcome, nil
		}
	}
}

// sample reads the set's status, asks the planner what the rollout waits
// for, and notes the set's new events. A read that fails is skipped: the
// next sample reads again.
func (o *observation) sample(ctx context.Context, now time.Time) {
	t, err := setops.Find(ctx, o.stage.client, o.stage.ext, o.ns, ref(o.set))
	if err != nil {
		return
	}
	st := t.Set.Status
	if st.ObservedGeneration >= o.gen {
		o.observed = true
		if o.to == "" {
			o.to = st.UpdateRevision
		}
	}
	if o.to != "" && o.to != o.from && st.UpdateRevision == o.from {
		o.rolledBack = true
	}
	if x := t.Extended; x != nil {
		if rb := x.Status.Rollback; rb != nil && !rb.Time.Time.Before(o.t0.Add(-time.Second)) {
			o.rolledBack = true
		}
		c := meta.FindStatusCondition(x.Status.Conditions, planner.ConditionProgressing)
		o.paused = c != nil && c.Reason == planner.ReasonRolloutPaused
	}
	if obs, err := t.Observe(ctx); err == nil {
		if rep, err := setops.PlanReport(obs, now); err == nil {
			ps := forecast.PlanSample{At: now.Sub(o.t0), Acting: len(rep.Steps) > 0}
			for _, w := range rep.Waits {
				ps.Waits = append(ps.Waits, forecast.WaitSample{Pod: w.Pod, Why: w.Policy})
			}
			o.plans = append(o.plans, ps)
		}
	}
	o.noteEvents(ctx, now)
}

// notable are the reasons of the set's Normal events a forecast shows;
// every Warning event is shown too.
var notable = map[string]bool{"RolledBack": true, "RolloutPaused": true, "RolloutComplete": true}

// noteEvents records the set's events since the change, once each, at
// when they were first seen.
func (o *observation) noteEvents(ctx context.Context, now time.Time) {
	list, err := o.stage.client.CoreV1().Events(o.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	for _, ev := range list.Items {
		if ev.InvolvedObject.Name != o.set.Name() || ev.InvolvedObject.Kind != "StatefulSet" {
			continue
		}
		if at := eventTime(&ev); at.Before(o.t0.Add(-time.Second)) {
			continue
		}
		if ev.Type != corev1.EventTypeWarning && !notable[ev.Reason] {
			continue
		}
		if ev.Reason == "RolledBack" {
			o.rolledBack = true
		}
		key := ev.Reason + "\x00" + ev.Message
		if _, seen := o.events[key]; !seen {
			o.events[key] = forecast.Event{At: forecast.Seconds(now.Sub(o.t0)), Reason: ev.Reason, Message: ev.Message}
		}
	}
}

func eventTime(ev *corev1.Event) time.Time {
	switch {
	case !ev.LastTimestamp.IsZero():
		return ev.LastTimestamp.Time
	case !ev.EventTime.IsZero():
		return ev.EventTime.Time
	}
	return ev.CreationTimestamp.Time
}

// result is the run's forecast from what was observed.
func (o *observation) result(outcome forecast.Outcome, p Play) forecast.Run {
	samples, moved := o.pods.result()
	tracks := forecast.Tracks(o.set.Name(), samples, o.end)
	mr := minReady(o.set)
	counts := forecast.Counts(tracks, mr)
	r := forecast.Run{
		Outcome: outcome, Replicas: replicas(o.set), MinReadySeconds: int32(mr / time.Second),
		From: o.from, To: o.to, Pods: tracks, Waits: forecast.Waits(o.plans, o.end),
	}
	r.Seconds = forecast.Seconds(moved)
	if outcome == forecast.TimedOut {
		r.Seconds = forecast.Seconds(o.end)
	}
	r.MinReady, r.MinAvailable = forecast.Fewest(counts, o.end)
	r.Budgets, r.Notes = budgetsOf(p.Copy, r.Replicas, counts, o.end)
	if outcome == forecast.Stuck || outcome == forecast.Paused {
		r.StuckAt = openWait(r.Waits, o.end)
	}
	for _, e := range o.events {
		r.Events = append(r.Events, e)
	}
	sort.Slice(r.Events, func(i, j int) bool { return r.Events[i].At < r.Events[j].At })
	return r
}

// openWait is the first wait still open at end: what the rollout waits
// for when it stops.
func openWait(waits []forecast.Wait, end time.Duration) *forecast.Wait {
	for i := range waits {
		if waits[i].To.D() >= end {
			w := waits[i]
			return &w
		}
	}
	return nil
}
