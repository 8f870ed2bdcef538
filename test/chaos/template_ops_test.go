package chaos

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"

	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// behaviorKey is the annotation that makes simulated pods misbehave.
const behaviorKey = nodes.AnnotationBehavior

// behaviors are the ways breakTemplate breaks a template.
var behaviors = []string{nodes.BehaviorNeverReady, nodes.BehaviorCrashLoop, nodes.BehaviorFail, nodes.BehaviorImagePullError}

// breakTemplate gives the set's template a behavior its pods fail with, as
// a bad release does: a rollout starts and goes wrong.
func (r *run) breakTemplate(ctx context.Context) bool {
	return r.breakSet(ctx, r.pickSet(), behaviors)
}

// breakSet gives cs's template one of the behaviors from.
func (r *run) breakSet(ctx context.Context, cs *chaosSet, from []string) bool {
	t := cs.templates[len(cs.templates)-1]
	t.behavior = from[r.rng.Intn(len(from))]
	r.logf("break %s: %s", cs.name, t)
	return r.apply(ctx, cs, t)
}

// permanent are the behaviors whose pods fail at once for good (a Failed
// pod, an image that cannot be pulled), so the failure policy need not
// wait for the progress deadline.
var permanent = []string{nodes.BehaviorFail, nodes.BehaviorImagePullError}

// breakExtendedOp breaks the template of an extended set (one step of
// every run that has one) with a permanent failure, so that each run puts
// the failure policy and self-healing to work.
var breakExtendedOp = op{"break-extended", 0, false, (*run).breakExtended}

func (r *run) breakExtended(ctx context.Context) bool {
	for _, cs := range r.sets {
		if cs.extended {
			return r.breakSet(ctx, cs, permanent)
		}
	}
	return false
}

// breakStep picks the step that breakExtended takes: not a hand-over, and
// in the middle of the run when it can, late enough for the set's first
// rollout to have completed (so a rollback has somewhere to go) and early
// enough for the controller to meet the failure before the run fixes it;
// -1 when every step is a hand-over.
func (r *run) breakStep(handOvers map[int]bool) int {
	var free, middle []int
	for i := 0; i < *flagOps; i++ {
		if handOvers[i] {
			continue
		}
		free = append(free, i)
		if i >= *flagOps*3/8 && i < *flagOps*6/8 {
			middle = append(middle, i)
		}
	}
	if len(middle) > 0 {
		free = middle
	}
	if len(free) == 0 {
		return -1
	}
	return free[r.rng.Intn(len(free))]
}

// fixTemplate removes the behavior from the set's live template: the
// user's fix, rolled out as a new revision.
func (r *run) fixTemplate(ctx context.Context) bool {
	cs := r.pickSet()
	return r.fix(ctx, cs)
}

// fix removes the behavior from cs's live template (the user's: the
// controller never changes it); false when it has none.
func (r *run) fix(ctx context.Context, cs *chaosSet) bool {
	var fixed template
	broken := false
	err := r.mutate(ctx, cs, func(f specFields) {
		fixed = templateOf(f.template)
		broken = fixed.behavior != ""
		fixed.behavior = ""
		setTemplate(f.template, fixed)
	})
	if err != nil || !broken {
		return false
	}
	cs.templates = append(cs.templates, fixed)
	r.logf("fix %s: %s", cs.name, fixed)
	return true
}

// fixAll ends a run's chaos as a user would: every template fixed and
// every rollout the run paused resumed (an extended set's pause field, an
// apps/v1 set's partition the pause op raised). A hold the controller
// recorded ends with the fix when the fix changes the template; converge
// releases the others.
func (r *run) fixAll(ctx context.Context) {
	r.fixProbes(ctx)
	for _, cs := range r.sets {
		r.logExtended(ctx, cs)
		r.fix(ctx, cs)
		switch {
		case !cs.extended && cs.paused:
			r.resumeApps(ctx, cs, "resume")
		case cs.extended && !cs.recreate:
			err := r.mutate(ctx, cs, func(f specFields) { *f.paused = false })
			r.logf("resume %s (%s)", cs.name, errWord(err))
		}
	}
}

// logExtended records what the controller's failure handling left on an
// extended set when the chaos ends: paused or not, its hold, the pods it
// is blocked by and its last automatic rollback.
func (r *run) logExtended(ctx context.Context, cs *chaosSet) {
	if !cs.extended {
		return
	}
	set, err := r.ext.StatefulSets(r.ns).Get(ctx, cs.name, metav1.GetOptions{})
	if err != nil {
		r.logf("%s at the end of the chaos: %s", cs.name, err)
		return
	}
	paused := false
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		paused = ru.Paused
	}
	rollback := "none"
	if rb := set.Status.Rollback; rb != nil {
		rollback = fmt.Sprintf("%s -> %s (%s)", rb.From, rb.To, rb.Reason)
	}
	r.logf("%s at the end of the chaos: %s, paused %t, %s, blocked by %d pod(s), last rollback %s", cs.name, templateOf(&set.Spec.Template), paused,
		holdWords(set.Status.Hold), len(set.Status.BlockedBy), rollback)
}

// holdWords describes a hold of the failure policy for the scenario.
func holdWords(h *v1alpha1.RolloutHold) string {
	if h == nil {
		return "not held"
	}
	return fmt.Sprintf("held %s %s (revision %s, running %s: %s)", h.ID, h.Action, h.FailedRevision, h.Revision, h.Reason)
}
