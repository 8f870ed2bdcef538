package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// lastEvent returns the newest event from source in any namespace that
// happened after since, or nil.
func (d *Doctor) lastEvent(ctx context.Context, source string, since time.Time) (*corev1.Event, error) {
	list, err := d.client.CoreV1().Events(metav1.NamespaceAll).List(ctx,
		metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("source", source).String()})
	if err != nil {
		return nil, err
	}
	var last *corev1.Event
	for i := range list.Items {
		e := &list.Items[i]
		if e.Source.Component != source && e.ReportingController != source {
			continue // the field selector already left these out, on a real server
		}
		if t := eventTime(e); t.After(since) && (last == nil || t.After(eventTime(last))) {
			last = e
		}
	}
	return last, nil
}

// eventTime is when the event last happened, whichever API wrote it.
func eventTime(e *corev1.Event) time.Time {
	t := e.LastTimestamp.Time
	for _, c := range []time.Time{e.FirstTimestamp.Time, e.EventTime.Time} {
		if c.After(t) {
			t = c
		}
	}
	if e.Series != nil && e.Series.LastObservedTime.After(t) {
		t = e.Series.LastObservedTime.Time
	}
	return t
}

func describeEvent(e *corev1.Event, now time.Time) string {
	o := e.InvolvedObject
	return fmt.Sprintf("event %s on %s %s/%s %s ago", e.Reason, o.Kind, o.Namespace, o.Name, age(now, eventTime(e)))
}

// age is how long before now t was, to the second, as short(d) spells it.
func age(now, t time.Time) string {
	d := now.Sub(t)
	if d < 0 {
		d = 0
	}
	return short(d.Round(time.Second))
}

// short spells a duration without zero units: 1h, 1h30m, 45s.
func short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
