package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/podcall"
)

// PodControl applies the planner's actions through the API.
type PodControl interface {
	// Apply runs the steps in order and stops after the first step with a
	// real error, which it returns.
	Apply(ctx context.Context, set *appsv1.StatefulSet, setKey string, steps []planner.Step) error
}

type apiPodControl struct {
	client   kubernetes.Interface
	recorder record.EventRecorder
	exp      *expectations
	// calls starts the calls of http lifecycle hooks.
	calls podcall.Caller
	// evictions remembers the evictions the API server refused.
	evictions evictions
	// inFlight, when positive, bounds the units of a batch that run at
	// once (Options.BurstInFlight).
	inFlight int
	// nodes reads nodes live before a node-failure action (nodeguard.go);
	// nil without node facts.
	nodes *nodeFacts
	// budget, when positive, is how long one Apply may spend before it
	// stops at a batch boundary of a Burst step (burstBudget, synccut.go).
	budget time.Duration
	// configMaps reads the metadata of the copies a reload hook's request
	// names (configlive.go); nil until the ConfigMap cache is set up.
	configMaps corelisters.ConfigMapLister
	// responder names the controller in the eviction responders of the
	// extended kind's pods it creates (evictionresponder.go).
	responder bool
}

var _ PodControl = (*apiPodControl)(nil)

// Apply runs each step's per-pod units: one after another, or for a Burst
// step in its slow-start batches, and stops after the first step, unit or
// batch with a real error, as planner.Plan.Steps describes. A Burst step
// also stops at a batch boundary once Apply has run for its budget, with
// errCutShort.
func (c *apiPodControl) Apply(ctx context.Context, set *appsv1.StatefulSet, setKey string, steps []planner.Step) error {
	began := time.Now()
	for _, step := range steps {
		run := c.sequential
		if step.Burst {
			run = func(ctx context.Context, set *appsv1.StatefulSet, setKey string, step planner.Step) error {
				return c.burst(ctx, set, setKey, step, began)
			}
		}
		if err := run(ctx, set, setKey, step); err != nil {
			return fmt.Errorf("%s: %w", step.Name, err)
		}
	}
	return nil
}

func (c *apiPodControl) sequential(ctx context.Context, set *appsv1.StatefulSet, setKey string, step planner.Step) error {
	for _, unit := range units(step.Actions) {
		if err := c.unit(ctx, set, setKey, unit); err != nil {
			return err
		}
	}
	return nil
}

// burst runs the step's batches in order, the units of one batch
// concurrently (at most inFlight at once, in order, when it is set); a
// batch with an error ends the step after all its units have run, so one
// failing pod never stops its siblings already in flight. Which units run
// is upstream's either way: only how many wait for the client's tokens at
// once differs. Once the Apply that began at began has spent its budget,
// no further unit starts (after at least one has) and the step ends with
// errCutShort when its units in flight are done: the next sync plans the
// rest.
func (c *apiPodControl) burst(ctx context.Context, set *appsv1.StatefulSet, setKey string, step planner.Step, began time.Time) error {
	start := 0
	for _, n := range batchSizes(step) {
		batch := units(step.Actions[start : start+n])
		cut, err := c.runBatch(ctx, set, setKey, batch, start > 0, began)
		start += n
		switch {
		case err != nil:
			return err
		case cut:
			return errCutShort
		}
	}
	return nil
}

// runBatch runs one batch's units side by side and returns their joined
// errors; cut says it stopped starting them because the Apply spent its
// budget (started says units of this Apply ran before the batch).
func (c *apiPodControl) runBatch(ctx context.Context, set *appsv1.StatefulSet, setKey string, batch [][]planner.Action, started bool, began time.Time) (cut bool, err error) {
	errs := make([]error, len(batch))
	width := len(batch)
	if c.inFlight > 0 {
		width = min(width, c.inFlight)
	}
	slots := make(chan struct{}, width)
	var wg sync.WaitGroup
	for i, unit := range batch {
		slots <- struct{}{}
		if (started || i > 0) && overBudget(c.budget, began, time.Now()) {
			cut = true
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			errs[i] = c.unit(ctx, set, setKey, unit)
		}()
	}
	wg.Wait()
	return cut, errors.Join(errs...)
}

// batchSizes is the step's batches, trusting them only when they add up
// to its actions; otherwise every action is a batch of its own.
func batchSizes(step planner.Step) []int {
	total := 0
	for _, n := range step.Batches {
		total += n
	}
	if total == len(step.Actions) {
		return step.Batches
	}
	sizes := make([]int, len(step.Actions))
	for i := range sizes {
		sizes[i] = 1
	}
	return sizes
}

// units splits actions into runs of consecutive actions on one ordinal.
func units(actions []planner.Action) [][]planner.Action {
	var out [][]planner.Action
	for i, a := range actions {
		if i == 0 || a.Ordinal != actions[i-1].Ordinal {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], a)
	}
	return out
}

// unit runs one pod's actions in order, as upstream's pod control does for
// one pod: every claim create runs, and their errors, joined, fail the
// unit at its next action (or a Fail action's own error joins them); any
// other failing action ends the unit. The pod's success events are
// recorded once the whole unit has succeeded, its failure event when it
// fails; claims record their own events at once.
func (c *apiPodControl) unit(ctx context.Context, set *appsv1.StatefulSet, setKey string, unit []planner.Action) error {
	var claimErrs []error
	claimFail := ""
	var succeeded []planner.Action
	for _, a := range unit {
		if a.Kind == planner.CreateClaim {
			if err := c.createClaim(ctx, set, a); err != nil {
				claimErrs, claimFail = append(claimErrs, err), a.FailEvent
			}
			continue
		}
		if a.Kind == planner.Fail {
			err := utilerrors.NewAggregate(append(claimErrs, errors.New(a.Error)))
			c.podEvent(set, a, a.FailEvent, err)
			return err
		}
		if len(claimErrs) > 0 {
			break
		}
		if err := c.do(ctx, set, setKey, a); err != nil {
			if refused := (*evictionRefused)(nil); errors.As(err, &refused) {
				// A wait, not a failure: the unit ends, the step goes on.
				c.recordRefusal(set, a, refused)
				return nil
			}
			if changed := (*podChanged)(nil); errors.As(err, &changed) {
				klog.FromContext(ctx).V(4).Info("Pod changed since the plan read it; the next sync plans again", "statefulset", setKey,
					"kind", a.Kind, "pod", a.Pod.Name, "err", err)
				return nil
			}
			c.podEvent(set, a, a.FailEvent, err)
			return fmt.Errorf("%s: %w", doing(a), err)
		}
		succeeded = append(succeeded, a)
	}
	if len(claimErrs) > 0 {
		err := utilerrors.NewAggregate(claimErrs)
		c.podEvent(set, unit[len(unit)-1], claimFail, err)
		return err
	}
	for _, a := range succeeded {
		c.podEvent(set, a, a.EventReason, nil)
	}
	return nil
}

func (c *apiPodControl) do(ctx context.Context, set *appsv1.StatefulSet, setKey string, a planner.Action) error {
	klog.FromContext(ctx).V(4).Info("Applying action", "statefulset", setKey, "kind", a.Kind, "ordinal", a.Ordinal, "reason", a.Reason)
	switch a.Kind {
	case planner.CreatePod:
		return c.createPod(ctx, set, setKey, a)
	case planner.DeletePod:
		return c.deletePod(ctx, setKey, a)
	case planner.ForceDeletePod:
		return c.forceDeletePod(ctx, setKey, a)
	case planner.DeleteClaim:
		return c.deleteClaim(ctx, a)
	case planner.UpdatePod:
		return c.updatePod(ctx, a)
	case planner.UpdateClaim:
		return c.updateClaim(ctx, a)
	case planner.UpdateClaimStorage:
		return c.patchClaimStorage(ctx, a)
	case planner.PatchPod, planner.ResizePod, planner.PatchPodStatus, planner.StartHook, planner.EndHook:
		return c.patchInPlace(ctx, a)
	case planner.ReloadPod:
		return c.reloadPod(ctx, set, a)
	case planner.CallHook:
		if len(a.Call.Request.Config) > 0 {
			withKeyHashes(c.configMaps, set.Namespace, &a.Call.Request)
		}
		c.calls.StartHook(ctx, setKey, a)
		return nil
	default:
		return fmt.Errorf("unknown action %q", a.Kind)
	}
}

// doing says what an action was doing, for the error a failed one returns.
func doing(a planner.Action) string {
	switch {
	case a.Claim != nil:
		return fmt.Sprintf("%s %s", a.Kind, a.Claim.Name)
	case a.Pod != nil:
		return fmt.Sprintf("%s %s", a.Kind, a.Pod.Name)
	}
	return string(a.Kind)
}
