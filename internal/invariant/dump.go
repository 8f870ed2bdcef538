package invariant

import (
	"fmt"
	"io"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// WriteHistory writes the recorded events in commit order, one line each,
// with the fields the rules look at, and a line at each hand-over between
// controllers: for reading a violation's context.
func (c *Checker) WriteHistory(w io.Writer) error {
	c.mu.Lock()
	events := append([]Event(nil), c.events...)
	c.mu.Unlock()
	sort.SliceStable(events, func(i, j int) bool { return events[i].RV < events[j].RV })
	handOvers := c.handOversByRV()
	for _, ev := range events {
		for len(handOvers) > 0 && handOvers[0].rv < ev.RV {
			h := handOvers[0]
			handOvers = handOvers[1:]
			if _, err := fmt.Fprintf(w, "%d %s HAND-OVER: %s is in charge from here on\n", h.rv, h.time.Format("15:04:05.000"), h.to); err != nil {
				return err
			}
		}
		m, err := meta.Accessor(ev.Object)
		if err != nil {
			continue
		}
		relisted := ""
		if ev.Relisted {
			relisted = " (relisted)"
		}
		uid := string(m.GetUID())
		if len(uid) > 8 {
			uid = uid[:8]
		}
		deleting := ""
		if m.GetDeletionTimestamp() != nil {
			deleting = " terminating"
		}
		if _, err := fmt.Fprintf(w, "%d %s %-8s %s %s uid=%s%s%s %s\n", ev.RV, ev.Time.Format("15:04:05.000"), ev.Type, ev.Kind,
			m.GetName(), uid, deleting, relisted, details(ev.Object)); err != nil {
			return err
		}
	}
	return nil
}

func details(obj any) string {
	switch o := obj.(type) {
	case *corev1.Pod:
		ready := "-"
		for _, c := range o.Status.Conditions {
			if c.Type == corev1.PodReady {
				ready = string(c.Status)
			}
		}
		return fmt.Sprintf("phase=%s ready=%s rev=%s node=%s", o.Status.Phase, ready, o.Labels[RevisionLabel], o.Spec.NodeName)
	case *appsv1.StatefulSet:
		start, end := span(o)
		collisions := "nil"
		if o.Status.CollisionCount != nil {
			collisions = fmt.Sprint(*o.Status.CollisionCount)
		}
		return fmt.Sprintf("gen=%d range=[%d,%d) partition=%d status{obs=%d replicas=%d ready=%d current=%s/%d update=%s/%d collisions=%s}",
			o.Generation, start, end, partitionOf(o), o.Status.ObservedGeneration, o.Status.Replicas, o.Status.ReadyReplicas,
			o.Status.CurrentRevision, o.Status.CurrentReplicas, o.Status.UpdateRevision, o.Status.UpdatedReplicas, collisions)
	case *v1alpha1.StatefulSet:
		return extendedDetails(o)
	case *corev1.PersistentVolumeClaim:
		return fmt.Sprintf("phase=%s volume=%s owners=%s", o.Status.Phase, o.Spec.VolumeName, ownerWords(o.OwnerReferences))
	case *appsv1.ControllerRevision:
		return fmt.Sprintf("revision=%d", o.Revision)
	}
	return ""
}

// extendedDetails is an apps/v1 set's line plus what the extended kind
// adds: strategy, pause, failure policy, and the rollback record.
func extendedDetails(o *v1alpha1.StatefulSet) string {
	strategy := string(o.Spec.UpdateStrategy.Type)
	if ru := o.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		strategy += fmt.Sprintf("(paused=%t selfHealing=%s onFailure=%s)", ru.Paused, ru.SelfHealing, ru.OnFailure)
	}
	template := ""
	if cs := o.Spec.Template.Spec.Containers; len(cs) > 0 {
		template = cs[0].Image
	}
	names := make([]string, 0, len(o.Spec.Template.Annotations))
	for k := range o.Spec.Template.Annotations {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		template += " " + k + "=" + o.Spec.Template.Annotations[k]
	}
	return fmt.Sprintf("%s strategy=%s completed=%s rollback=%s template{%s}", details(ExtendedView(o)), strategy,
		o.Status.LastCompletedRevision, rollbackWords(o.Status.Rollback), template)
}
