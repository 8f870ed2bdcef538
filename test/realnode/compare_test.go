package realnode

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// side is where a scenario's pod runs: the real node, or a simulated one
// told by annotations to behave as the real one is made to.
type side struct {
	name string
	real bool
}

var sides = []side{{"real", true}, {"simulated", false}}

// placed returns spec placed on the side's node, with the simulated pod's
// annotations.
func placed(s side, name string, spec corev1.PodSpec, simAnnotations map[string]string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-" + s.name}, Spec: spec}
	if !s.real {
		p.Spec.NodeSelector = map[string]string{corev1.LabelHostname: nodes.Hostname(0)}
		p.Spec.Tolerations = nil
		p.Spec.Containers[0].ReadinessProbe = nil
		p.Annotations = simAnnotations
	}
	return p
}

// Observed is what a user sees of a pod's container and conditions, with
// what varies by nature (times, IDs, messages with node-specific text)
// left out, so that the real and the simulated kubelet can be compared.
type Observed struct {
	Phase          corev1.PodPhase
	Conditions     []string // "Type=Status/Reason", sorted
	Ready, Started bool
	State          string // "running", "waiting/REASON", "terminated/REASON/CODE"
	LastState      string // "", or "terminated/REASON/CODE"
	RestartCount   int32
	NewContainerID bool
	Image          string
	Resources      string // the container status's resources
	Allocated      string
	// ObservedGeneration tells whether status.observedGeneration has
	// caught up with the pod's generation.
	ObservedGeneration bool
	// Events are the reasons of the events about the pod since the
	// scenario's action, sorted, without repeats.
	Events []string
}

// eventCounts are the counts of the events about the pod so far, by name.
func eventCounts(ctx context.Context, t *testing.T, ns, pod string) map[string]int32 {
	t.Helper()
	events, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("involvedObject.name", pod).String()})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int32{}
	for _, e := range events.Items {
		seen[e.Name] = max(e.Count, 1)
	}
	return seen
}

// observe reads what a user sees of p; its events are those new or
// repeated since seen was counted (nil: all of them).
func observe(ctx context.Context, t *testing.T, p *corev1.Pod, before string, seen map[string]int32) Observed {
	t.Helper()
	o := Observed{Phase: p.Status.Phase, ObservedGeneration: p.Status.ObservedGeneration == p.Generation}
	for _, c := range p.Status.Conditions {
		switch c.Type {
		case corev1.PodReady, corev1.ContainersReady, corev1.PodResizePending, corev1.PodResizeInProgress:
			o.Conditions = append(o.Conditions, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
		}
	}
	slices.Sort(o.Conditions)
	if len(p.Status.ContainerStatuses) > 0 {
		cs := p.Status.ContainerStatuses[0]
		o.Ready, o.Started = cs.Ready, cs.Started != nil && *cs.Started
		o.State, o.LastState = state(cs.State), state(cs.LastTerminationState)
		o.RestartCount, o.NewContainerID, o.Image = cs.RestartCount, cs.ContainerID != before, cs.Image
		if cs.Resources != nil {
			o.Resources = resources(cs.Resources.Requests) + " " + resources(cs.Resources.Limits)
		}
		o.Allocated = resources(cs.AllocatedResources)
	}
	events, err := client.CoreV1().Events(p.Namespace).List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("involvedObject.name", p.Name).String()})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if max(e.Count, 1) > seen[e.Name] && !slices.Contains(o.Events, e.Reason) && !slices.Contains(notCompared, e.Reason) {
			o.Events = append(o.Events, e.Reason)
		}
	}
	slices.Sort(o.Events)
	return o
}

// notCompared are event reasons left out of every comparison: the
// scheduler's, not a kubelet's; and a failed probe's, which the simulated
// nodes have no probes to write but by a never-ready pod's stage, while a
// real kubelet may or may not see one fail as a restarted container
// starts, by timing.
var notCompared = []string{"Scheduled", "Unhealthy"}

// startEvents are what a real kubelet reports of each container start,
// and the simulated nodes only of a restart in place: kwok's stages, which
// start pods (and restart a crash-looping one), write one event a step,
// and three more writes per pod start would change every benchmark's write
// count. A scenario without an action in place leaves them out.
var startEvents = []string{"Pulled", "Created", "Started"}

func withoutStartEvents(o Observed) Observed {
	o.Events = slices.DeleteFunc(o.Events, func(r string) bool { return slices.Contains(startEvents, r) })
	if len(o.Events) == 0 {
		o.Events = nil
	}
	return o
}

func state(s corev1.ContainerState) string {
	switch {
	case s.Running != nil:
		return "running"
	case s.Waiting != nil:
		return "waiting/" + s.Waiting.Reason
	case s.Terminated != nil:
		return fmt.Sprintf("terminated/%s/%d", s.Terminated.Reason, s.Terminated.ExitCode)
	}
	return ""
}

func resources(l corev1.ResourceList) string {
	var parts []string
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := l[name]; ok {
			parts = append(parts, string(name)+"="+q.String())
		}
	}
	return strings.Join(parts, ",")
}

// resourced gives the application's container cpu and memory requests and
// limits.
func resourced(spec corev1.PodSpec) corev1.PodSpec {
	spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
	}
	return spec
}

// scenario is one behaviour, run on both sides.
type scenario struct {
	name string
	spec corev1.PodSpec
	// sim are the simulated pod's annotations.
	sim map[string]string
	// started is when the pod is up enough for the action (default:
	// Ready).
	started func(*corev1.Pod) bool
	// act is the change made to the running pod; nil observes the pod as
	// started.
	act func(ctx context.Context, t *testing.T, p *corev1.Pod)
	// settled is when to observe after the action.
	settled func(*corev1.Pod) bool
	// events are the reasons of the events the kubelet reports last for
	// the action (or, without one, for the start), waited for once settled
	// holds: a kubelet's events reach the API server apart from its status
	// writes, either first.
	events []string
	// within bounds the wait for settled.
	within time.Duration
}

// run runs the scenario on both sides and returns their observations, the
// real one first. Each side is observed once its kubelet has settled: the
// pod as settled says, status.observedGeneration at the pod's generation
// (a real kubelet's status manager sets it on every status sync) and the
// scenario's events reported.
func (sc scenario) run(ctx context.Context, t *testing.T, ns string) (real, sim Observed, pods map[string]*corev1.Pod) {
	t.Helper()
	started := sc.started
	if started == nil {
		started = func(p *corev1.Pod) bool { return ready(p) }
	}
	settled := sc.settled
	if settled == nil {
		settled = started
	}
	within := sc.within
	if within == 0 {
		within = 2 * time.Minute
	}
	pods = map[string]*corev1.Pod{}
	var out []Observed
	for _, s := range sides {
		p := placed(s, sc.name, *sc.spec.DeepCopy(), sc.sim)
		if _, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		up := waitPod(ctx, t, ns, p.Name, 2*time.Minute, "started ("+s.name+")", started)
		before := ""
		if len(up.Status.ContainerStatuses) > 0 {
			before = up.Status.ContainerStatuses[0].ContainerID
		}
		var seen map[string]int32
		if sc.act != nil {
			if s.real {
				// The start's events, counted before the action, must
				// not arrive after it and be taken for the action's.
				waitEvents(ctx, t, ns, p.Name, startEvents)
			}
			seen = eventCounts(ctx, t, ns, p.Name)
			sc.act(ctx, t, up)
		}
		began := time.Now()
		var statusAt time.Duration
		got, o := settle(ctx, t, ns, p.Name, within, func(p *corev1.Pod) (Observed, bool) {
			o := observe(ctx, t, p, before, seen)
			status := settled(p) && p.Status.ObservedGeneration == p.Generation
			if status && statusAt == 0 {
				statusAt = time.Since(began)
			}
			return o, status && containsAll(o.Events, sc.events)
		})
		// How long the events took after the status, for the record.
		t.Logf("%s: status settled after %s, events %v after %s", s.name, statusAt.Round(time.Millisecond), sc.events, time.Since(began).Round(time.Millisecond))
		pods[s.name] = got
		if sc.act == nil {
			o = withoutStartEvents(o)
		}
		out = append(out, o)
	}
	return out[0], out[1], pods
}

// settle polls the pod until done says its kubelet has settled, and
// returns the pod and done's observation of it. Past within it reports
// the pod as unsettled and returns what it last saw, so that the
// comparison still shows how the sides differ.
func settle(ctx context.Context, t *testing.T, ns, name string, within time.Duration, done func(*corev1.Pod) (Observed, bool)) (*corev1.Pod, Observed) {
	t.Helper()
	var last *corev1.Pod
	var o Observed
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, within, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		var ok bool
		last = p
		o, ok = done(p)
		return ok, nil
	})
	if err != nil {
		if last == nil {
			t.Fatalf("pod %s/%s: %v", ns, name, err)
		}
		t.Errorf("pod %s/%s did not settle within %s: %v; last seen %+v, status: %s", ns, name, within, err, o, describe(last))
	}
	return last, o
}

// waitEvents waits until events of every reason in reasons are reported
// about the pod.
func waitEvents(ctx context.Context, t *testing.T, ns, pod string, reasons []string) {
	t.Helper()
	var got []string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		events, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("involvedObject.name", pod).String()})
		if err != nil {
			return false, nil
		}
		got = got[:0]
		for _, e := range events.Items {
			got = append(got, e.Reason)
		}
		return containsAll(got, reasons), nil
	})
	if err != nil {
		t.Fatalf("pod %s/%s: events %v, want %v among them: %v", ns, pod, got, reasons, err)
	}
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
