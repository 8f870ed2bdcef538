package provisioner

import (
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Annotations on a claim that rehearse what real storage does when asked to
// grow, in the style of the sim.ordinal.dev/* annotations the simulated
// nodes read on pods. They are read on every attempt, so changing or
// removing one changes what the next attempt does.
const (
	// annResize is "slow", "fail" or "infeasible"; absent means a resize
	// succeeds at once.
	annResize = "sim.ordinal.dev/resize"
	// annResizeDelay is how long a "slow" resize stays in
	// ControllerResizeInProgress before the storage answers (default 10s).
	annResizeDelay = "sim.ordinal.dev/resize-delay"
	// annResizeMax is the largest size the storage accepts; a resize to
	// more is infeasible.
	annResizeMax = "sim.ordinal.dev/resize-max"
)

// Values of annResize.
const (
	simResizeSlow       = "slow"
	simResizeFail       = "fail"
	simResizeInfeasible = "infeasible"
)

// defaultResizeDelay is a "slow" resize's delay without annResizeDelay.
const defaultResizeDelay = 10 * time.Second

// simResize is what a claim's annotations ask the simulated storage to do.
type simResize struct {
	mode  string        // "", simResizeSlow, simResizeFail or simResizeInfeasible
	delay time.Duration // for simResizeSlow
	max   *resource.Quantity
}

// parseSimResize reads claim's rehearsal annotations; every bad value is
// reported at once, naming the annotation.
func parseSimResize(claim *corev1.PersistentVolumeClaim) (simResize, error) {
	var errs []error
	sim := simResize{mode: claim.Annotations[annResize], delay: defaultResizeDelay}
	switch sim.mode {
	case "", simResizeSlow, simResizeFail, simResizeInfeasible:
	default:
		errs = append(errs, fmt.Errorf("annotation %s: %q is not one of slow, fail, infeasible", annResize, sim.mode))
	}
	if v, ok := claim.Annotations[annResizeDelay]; ok {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("annotation %s: %q is not a duration such as 10s", annResizeDelay, v))
		case d < 0:
			errs = append(errs, fmt.Errorf("annotation %s: %q is negative", annResizeDelay, v))
		default:
			sim.delay = d
		}
	}
	if v, ok := claim.Annotations[annResizeMax]; ok {
		q, err := resource.ParseQuantity(v)
		if err != nil || q.Sign() <= 0 {
			errs = append(errs, fmt.Errorf("annotation %s: %q is not a positive quantity such as 5Gi", annResizeMax, v))
		} else {
			sim.max = &q
		}
	}
	return sim, errors.Join(errs...)
}

// answer is what the simulated storage says to a request to grow a volume
// to size: resizeExpand when it succeeds, resizeInfeasible for a request it
// can never satisfy (a CSI driver's InvalidArgument or OutOfRange), or
// resizeFail for an error a retry may get past; msg says why it refused.
func (s simResize) answer(size resource.Quantity) (action resizeAction, msg string) {
	switch {
	case s.mode == simResizeInfeasible:
		return resizeInfeasible, fmt.Sprintf("simulated infeasible resize (%s=%s)", annResize, s.mode)
	case s.max != nil && size.Cmp(*s.max) > 0:
		return resizeInfeasible, fmt.Sprintf("requested size %s exceeds the storage's limit of %s (%s)", size.String(), s.max.String(), annResizeMax)
	case s.mode == simResizeFail:
		return resizeFail, fmt.Sprintf("simulated storage error (%s=%s)", annResize, s.mode)
	}
	return resizeExpand, ""
}
