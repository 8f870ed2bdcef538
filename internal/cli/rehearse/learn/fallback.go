package learn

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// startUpFallback is the start-up of a pod without its own: its peers'
// median, else the readiness probe's, else DefaultStartUp.
func startUpFallback(pods []Pod, spec corev1.PodSpec) (Seconds, Source) {
	if d, ok := medianOf(pods, func(p Pod) (time.Duration, bool) { return p.StartUp.D(), p.StartUpFrom == FromConditions }); ok {
		return Seconds(d), FromPeers
	}
	if d, ok := probeStartUp(spec); ok {
		return Seconds(d), FromProbe
	}
	return Seconds(DefaultStartUp), FromDefault
}

// shutdownFallback is the shutdown of a pod without its own: its peers'
// median, else the preStop sleep and no more (a container that exits at
// once on SIGTERM).
func shutdownFallback(pods []Pod, preStop Seconds) (Seconds, Source) {
	if d, ok := medianOf(pods, func(p Pod) (time.Duration, bool) { return p.Shutdown.D(), p.ShutdownFrom == FromEvents }); ok {
		return Seconds(d), FromPeers
	}
	return preStop, FromDefault
}

func medianOf(pods []Pod, get func(Pod) (time.Duration, bool)) (time.Duration, bool) {
	var ds []time.Duration
	for _, p := range pods {
		if d, ok := get(p); ok {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return 0, false
	}
	return median(ds), true
}

// probeStartUp is the soonest the first container's readiness probe
// reports Ready: its initial delay and one period (kubelet probes run
// every period from the initial delay on).
func probeStartUp(spec corev1.PodSpec) (time.Duration, bool) {
	var longest time.Duration
	found := false
	for _, c := range spec.Containers {
		p := c.ReadinessProbe
		if p == nil {
			continue
		}
		period := p.PeriodSeconds
		if period == 0 {
			period = 10
		}
		found = true
		longest = max(longest, time.Duration(p.InitialDelaySeconds+period)*time.Second)
	}
	return longest, found
}

// notes say, in a line each, what the source kept no trace of and what
// was played instead, and what the simulated pods cannot play.
func notes(t Timings, spec corev1.PodSpec) []string {
	var out []string
	var noStart, noStop, broken []string
	for _, p := range t.Pods {
		if p.StartUpFrom != FromConditions {
			noStart = append(noStart, p.Name)
		}
		if p.ShutdownFrom != FromEvents {
			noStop = append(noStop, p.Name)
		}
		if p.State != "" {
			broken = append(broken, fmt.Sprintf("%s (%s)", p.Name, p.State))
		}
	}
	if len(noStart) > 0 {
		out = append(out, fmt.Sprintf("start-up not in the conditions of %s (restarted, not Ready or not scheduled): played as %s from %s",
			list(noStart), t.StartUp, t.StartUpFrom))
	}
	if len(noStop) > 0 {
		out = append(out, fmt.Sprintf("no shutdown in the events of the last rollout for %s (events expire after an hour): played as %s from %s; each may take up to its grace period of %s",
			list(noStop), t.Shutdown, t.ShutdownFrom, t.GracePeriod))
	}
	if len(broken) > 0 {
		out = append(out, "not Ready in the source: "+list(broken)+"; the copy plays them Ready after their start-up")
	}
	if hasHookOtherThanSleep(spec) {
		out = append(out, "preStop exec and httpGet hooks are not played on their own: their time is in the learned shutdown")
	}
	return out
}

func hasHookOtherThanSleep(spec corev1.PodSpec) bool {
	for _, c := range spec.Containers {
		if h := c.Lifecycle; h != nil && h.PreStop != nil && h.PreStop.Sleep == nil {
			return true
		}
	}
	return false
}

// list is names joined by commas, at most five of them.
func list(names []string) string {
	const most = 5
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}
