package nodes

import (
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Annotations on a pod that rehearse what a node does with an in-place
// change; see docs/local-plane.md, "Rehearsing failures". They are read
// on every sync, so changing or removing one changes what happens next.
const (
	// AnnotationResize is "deferred" or "infeasible": the node does not
	// accept a resize (condition PodResizePending with that reason) until
	// the annotation changes. Absent, a resize is accepted.
	AnnotationResize = "sim.ordinal.dev/resize"
	// AnnotationResizeDelay is how long an accepted resize stays
	// PodResizeInProgress before the container runs with the new resources
	// (default 1s).
	AnnotationResizeDelay = "sim.ordinal.dev/resize-delay"
	// AnnotationInPlaceStart is "fail": a container restarted in place (an
	// image change, or a resize whose policy restarts it) runs for the
	// ready delay, exits with code 1 and stays in CrashLoopBackOff.
	AnnotationInPlaceStart = "sim.ordinal.dev/inplace-start"
)

// Values of AnnotationResize and AnnotationInPlaceStart.
const (
	ResizeDeferred   = "deferred"
	ResizeInfeasible = "infeasible"
	InPlaceStartFail = "fail"
)

// defaultResizeDelay is an accepted resize's time in progress without
// AnnotationResizeDelay.
const defaultResizeDelay = time.Second

// podSim is what a pod's annotations ask of its simulated node.
type podSim struct {
	behavior    string
	readyDelay  time.Duration
	resize      string // "", ResizeDeferred or ResizeInfeasible
	resizeDelay time.Duration
	startFails  bool
}

// parsePodSim reads pod's annotations. A ready delay that does not parse
// falls back to the default, as kwok's stages do; a bad value of an
// in-place annotation is an error naming it (every one at once), and the
// pod is left alone until it is fixed.
func parsePodSim(pod *corev1.Pod, readyDelay time.Duration) (podSim, error) {
	a := pod.Annotations
	sim := podSim{behavior: a[AnnotationBehavior], readyDelay: readyDelay, resize: a[AnnotationResize], resizeDelay: defaultResizeDelay}
	if d, err := time.ParseDuration(a[AnnotationReadyDelay]); err == nil && d >= 0 {
		sim.readyDelay = d
	}
	var errs []error
	switch sim.resize {
	case "", ResizeDeferred, ResizeInfeasible:
	default:
		errs = append(errs, fmt.Errorf("annotation %s: %q is not one of %s, %s", AnnotationResize, sim.resize, ResizeDeferred, ResizeInfeasible))
	}
	if v, ok := a[AnnotationResizeDelay]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			errs = append(errs, fmt.Errorf("annotation %s: %q is not a non-negative duration such as 2s", AnnotationResizeDelay, v))
		} else {
			sim.resizeDelay = d
		}
	}
	switch v := a[AnnotationInPlaceStart]; v {
	case "":
	case InPlaceStartFail:
		sim.startFails = true
	default:
		errs = append(errs, fmt.Errorf("annotation %s: %q is not %s", AnnotationInPlaceStart, v, InPlaceStartFail))
	}
	return sim, errors.Join(errs...)
}

// restartedCrashes reports whether a container restarted in place crashes
// instead of turning Ready: the pod asks for a failed in-place start, or
// crash-loops anyway.
func (s podSim) restartedCrashes() bool {
	return s.startFails || s.behavior == BehaviorCrashLoop
}

// crashCause names the annotation that makes a restarted container crash.
func (s podSim) crashCause() string {
	if s.startFails {
		return AnnotationInPlaceStart + "=" + InPlaceStartFail
	}
	return AnnotationBehavior + "=" + BehaviorCrashLoop
}
