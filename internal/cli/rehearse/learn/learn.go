package learn

import (
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Source says where a learned time comes from, in the order Learn tries
// them.
type Source string

const (
	// FromConditions is the pod's own conditions: PodScheduled to Ready.
	FromConditions Source = "conditions"
	// FromEvents is the events of the set's last rollout: the pod's
	// delete to its successor's create (or the kubelet's Killing event to
	// that create).
	FromEvents Source = "events"
	// FromPeers is the median of the set's pods learned from their own
	// trace.
	FromPeers Source = "peers"
	// FromProbe is the readiness probe's initialDelaySeconds plus one
	// periodSeconds: the soonest a kubelet reports the pod Ready.
	FromProbe Source = "probe"
	// FromDefault is a stated default: DefaultStartUp, or a shutdown of
	// the longest preStop sleep and no more.
	FromDefault Source = "default"
)

// DefaultStartUp is the start-up of a pod with no trace, no peer with one
// and no readiness probe: the local plane's default ready delay, a
// container that is Ready as soon as it runs.
const DefaultStartUp = time.Second

// shutdownSlack is how much longer than its grace period a delete-to-create
// span may be and still be read as the pod's shutdown: the controller's
// reaction and the events' whole seconds.
const shutdownSlack = 10 * time.Second

// Input is what the source cluster shows of one set.
type Input struct {
	// Set is the set's name; its pods are Set-0, Set-1, …
	Set string
	// Template is the set's pod template: its readiness probe, preStop
	// hooks and grace period.
	Template corev1.PodTemplateSpec
	// Pods are the set's pods as read.
	Pods []*corev1.Pod
	// Events are the namespace's events; those about other objects are
	// ignored.
	Events []*corev1.Event
}

// Pod is what was learned of one pod.
type Pod struct {
	Name    string `json:"name"`
	Ordinal int32  `json:"ordinal"`
	// StartUp is PodScheduled to Ready: what the simulated node plays as
	// the pod's ready delay (scheduling itself is the copy's scheduler's).
	StartUp     Seconds `json:"startUpSeconds"`
	StartUpFrom Source  `json:"startUpFrom"`
	// Shutdown is deletion to gone: what the simulated node plays after
	// the delete, preStop sleep included.
	Shutdown     Seconds `json:"shutdownSeconds"`
	ShutdownFrom Source  `json:"shutdownFrom"`
	// Stages split the start-up the pod showed, when it showed it.
	Stages *Stages `json:"stages,omitempty"`
	// Restarts is the sum of its containers' restart counts.
	Restarts int32 `json:"restarts"`
	// State says why the pod is not Ready in the source; "" when it is.
	State string `json:"state,omitempty"`
}

// Stages are the steps of a pod's start-up, from its conditions.
type Stages struct {
	// Scheduling is created to PodScheduled.
	Scheduling Seconds `json:"schedulingSeconds"`
	// Initializing is PodScheduled to Initialized (init containers,
	// volumes).
	Initializing Seconds `json:"initializingSeconds"`
	// Starting is Initialized to Ready (image, containers, probes).
	Starting Seconds `json:"startingSeconds"`
}

// Timings is what Learn learned of a set.
type Timings struct {
	// Pods are the set's pods by ordinal.
	Pods []Pod `json:"pods"`
	// StartUp and Shutdown are what a pod of an ordinal the source does
	// not have plays (a scale-up's), and where they come from.
	StartUp      Seconds `json:"startUpSeconds"`
	StartUpFrom  Source  `json:"startUpFrom"`
	Shutdown     Seconds `json:"shutdownSeconds"`
	ShutdownFrom Source  `json:"shutdownFrom"`
	// PreStopSleep is the longest preStop sleep of the template's
	// containers, which the simulated node plays before the rest of the
	// shutdown; GracePeriod caps both.
	PreStopSleep Seconds `json:"preStopSleepSeconds"`
	GracePeriod  Seconds `json:"gracePeriodSeconds"`
	// Notes say what could not be learned, and what stands in for it.
	Notes []string `json:"notes,omitempty"`
}

// Learn derives the timings of the set's pods: each pod's start-up from
// its conditions, its shutdown from the events of the last rollout, and
// for what a pod shows no trace of, its peers' median, then the
// readiness probe, then the stated defaults.
func Learn(in Input) Timings {
	t := Timings{PreStopSleep: Seconds(preStopSleep(in.Template.Spec)), GracePeriod: Seconds(gracePeriod(in.Template.Spec))}
	shutdowns := shutdownsFromEvents(in)
	for _, pod := range in.Pods {
		ord, ok := planner.ParseOrdinal(in.Set, pod.Name)
		if !ok {
			continue
		}
		p := observe(pod)
		p.Ordinal = ord
		if d, ok := shutdowns[pod.Name]; ok {
			p.Shutdown, p.ShutdownFrom = Seconds(d), FromEvents
		}
		t.Pods = append(t.Pods, p)
	}
	sort.Slice(t.Pods, func(i, j int) bool { return t.Pods[i].Ordinal < t.Pods[j].Ordinal })
	t.StartUp, t.StartUpFrom = startUpFallback(t.Pods, in.Template.Spec)
	t.Shutdown, t.ShutdownFrom = shutdownFallback(t.Pods, t.PreStopSleep)
	for i := range t.Pods {
		p := &t.Pods[i]
		if p.StartUpFrom == "" {
			p.StartUp, p.StartUpFrom = t.StartUp, t.StartUpFrom
		}
		if p.ShutdownFrom == "" {
			p.Shutdown, p.ShutdownFrom = t.Shutdown, t.ShutdownFrom
		}
	}
	t.Notes = notes(t, in.Template.Spec)
	return t
}

// For is what the pod of that name plays: its ready delay, and its stop
// delay after the preStop sleep (the simulated node adds the sleep
// itself), within the grace period. A pod the source does not have plays
// the set's fallback.
func (t Timings) For(pod string) (ready, stop time.Duration) {
	ready, shutdown := t.StartUp.D(), t.Shutdown.D()
	if i := slices.IndexFunc(t.Pods, func(p Pod) bool { return p.Name == pod }); i >= 0 {
		ready, shutdown = t.Pods[i].StartUp.D(), t.Pods[i].Shutdown.D()
	}
	stop = min(max(0, shutdown-t.PreStopSleep.D()), max(0, t.GracePeriod.D()-t.PreStopSleep.D()))
	return ready, stop
}

// median is the middle of ds (the mean of the two middle ones for an even
// count); ds is not empty.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
