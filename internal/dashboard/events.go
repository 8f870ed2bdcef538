package dashboard

import (
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// maxEvents bounds the timeline: the most recent ones.
const maxEvents = 100

// EventRow is one event on a set's timeline.
type EventRow struct {
	Time    time.Time `json:"time"`
	Type    string    `json:"type"`
	Reason  string    `json:"reason"`
	Object  string    `json:"object"`
	Message string    `json:"message"`
	Count   int32     `json:"count"`
}

// timeline keeps the events about the set, its pods (by name, so a pod
// already gone keeps its history) and its claims, newest first.
func timeline(set *appsv1.StatefulSet, kind string, events []*corev1.Event, claims []ClaimRow) []EventRow {
	claimNames := make(map[string]bool, len(claims))
	for _, c := range claims {
		claimNames[c.Name] = true
	}
	out := []EventRow{}
	for _, e := range events {
		obj := e.InvolvedObject
		about := (obj.Kind == kind && obj.Name == set.Name) ||
			(obj.Kind == "Pod" && isOrdinalPod(set.Name, obj.Name)) ||
			(obj.Kind == "PersistentVolumeClaim" && claimNames[obj.Name])
		if about {
			out = append(out, EventRow{Time: eventTime(e), Type: e.Type, Reason: e.Reason,
				Object: obj.Kind + "/" + obj.Name, Message: e.Message, Count: max(e.Count, 1)})
		}
	}
	slices.SortStableFunc(out, func(a, b EventRow) int { return b.Time.Compare(a.Time) })
	if len(out) > maxEvents {
		out = out[:maxEvents]
	}
	return out
}

// isOrdinalPod says whether name is <set>-<ordinal>.
func isOrdinalPod(set, name string) bool {
	if len(name) <= len(set)+1 || name[:len(set)+1] != set+"-" {
		return false
	}
	for _, ch := range name[len(set)+1:] {
		if ch < '0' || ch > '9' {
			return false
		}
	}
	return true
}

func eventTime(e *corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	}
	return e.CreationTimestamp.Time
}
