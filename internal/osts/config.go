package osts

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// ConfigHold says why a set whose revisions hold its ConfigMaps' and
// Secrets' data makes no new revision: an object its template reads is
// missing, may not be read, or there are too many.
type ConfigHold struct {
	// Reason is CamelCase: ConfigMissing, ConfigForbidden,
	// TooManyConfigObjects.
	Reason  string
	Message string
}

// ConfigCondition puts the ConfigResolved condition of s in st: True
// when every object its template reads was found and copied into the
// revision, False with the hold's reason while a hold stops new
// revisions. A set without spec.configRevisions has no such condition.
// The transition time stays the one s's status has while the status
// does not change.
func ConfigCondition(s *v1alpha1.StatefulSet, st *v1alpha1.StatefulSetStatus, hold *ConfigHold, now time.Time) {
	if s.Spec.ConfigRevisions == nil {
		return
	}
	c := metav1.Condition{Type: v1alpha1.ConditionConfigResolved, Status: metav1.ConditionTrue, Reason: "Resolved",
		Message: "the revision holds the data of every ConfigMap and Secret the template reads", ObservedGeneration: s.Generation}
	if hold != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, hold.Reason, hold.Message
	}
	c.LastTransitionTime = metav1.NewTime(now.Truncate(time.Second))
	for _, old := range s.Status.Conditions {
		if old.Type == c.Type && old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
	}
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

// Reload is configRevisions apply Reload for the planner, with
// lifecycle.reload; nil under Restart (the default).
func Reload(s *v1alpha1.StatefulSet) *planner.Reload {
	c := s.Spec.ConfigRevisions
	if c == nil || c.Apply != v1alpha1.ConfigApplyReload {
		return nil
	}
	out := &planner.Reload{}
	if l := s.Spec.Lifecycle; l != nil {
		if out.Hook = hook(s.Namespace, "reload", v1alpha1.ReloadHookLabel, l.Reload); out.Hook != nil {
			out.Hook.Reload = true
		}
	}
	return out
}
