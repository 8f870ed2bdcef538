package learn

import (
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// podEvent matches a StatefulSet controller's event about one of its
// pods, upstream's wording, which Ordinal's shares.
var podEvent = regexp.MustCompile(`(?i)^(create|delete) Pod (\S+) in StatefulSet (\S+) successful$`)

// combinedPrefix starts the message of an event the recorder aggregated
// from similar ones; it keeps only the last one's message and time.
const combinedPrefix = "(combined from similar events): "

// shutdownsFromEvents reads each pod's last shutdown from the events of
// the last rollout: from the controller's "delete Pod P" to its next
// "create Pod P" (the new pod is created once the old one is gone), or,
// without those, from the kubelet's Killing event of the old pod to the
// new pod's creation. A span that does not end at the current pod's
// creation, or is longer than the grace period allows, is not one.
func shutdownsFromEvents(in Input) map[string]time.Duration {
	deletes, creates, kills := map[string]time.Time{}, map[string]time.Time{}, map[string]time.Time{}
	for _, ev := range in.Events {
		at := eventTime(ev)
		switch {
		case ev.InvolvedObject.Kind == "StatefulSet" && ev.InvolvedObject.Name == in.Set:
			m := podEvent.FindStringSubmatch(strings.TrimPrefix(ev.Message, combinedPrefix))
			if m == nil || m[3] != in.Set {
				continue
			}
			into := creates
			if strings.EqualFold(m[1], "delete") {
				into = deletes
			}
			keepLatest(into, m[2], at)
		case ev.InvolvedObject.Kind == "Pod" && ev.Reason == "Killing":
			keepLatest(kills, ev.InvolvedObject.Name, at)
		}
	}
	limit := gracePeriod(in.Template.Spec) + shutdownSlack
	out := map[string]time.Duration{}
	for _, pod := range in.Pods {
		born := pod.CreationTimestamp.Time
		if c, ok := creates[pod.Name]; ok && near(c, born) {
			born = c
		}
		for _, gone := range []map[string]time.Time{deletes, kills} {
			d, ok := gone[pod.Name]
			if span := born.Sub(d); ok && span >= 0 && span <= limit {
				out[pod.Name] = span
				break
			}
		}
	}
	return out
}

// eventTime is when an event last happened: its lastTimestamp, else its
// eventTime (events.k8s.io), else its firstTimestamp.
func eventTime(ev *corev1.Event) time.Time {
	switch {
	case !ev.LastTimestamp.IsZero():
		return ev.LastTimestamp.Time
	case !ev.EventTime.IsZero():
		return ev.EventTime.Time
	}
	return ev.FirstTimestamp.Time
}

func keepLatest(m map[string]time.Time, key string, at time.Time) {
	if at.IsZero() {
		return
	}
	if was, ok := m[key]; !ok || at.After(was) {
		m[key] = at
	}
}

// near says whether two times a second apart at most are the same moment
// seen through whole-second timestamps.
func near(a, b time.Time) bool {
	d := a.Sub(b)
	return d >= -time.Second && d <= time.Second
}
