package rolloutview

import (
	"fmt"
	"strings"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// MemberHook is a postCreate or postUpdate hook as the plan shows it.
type MemberHook struct {
	Name    string `json:"name"`
	Handler string `json:"handler"`
	Timeout string `json:"timeout"`
	Proceed bool   `json:"proceed,omitempty"`
}

// fillMembers adds the set's member hooks and offline ordinals.
func fillMembers(x *ExtendedPlan, in *planner.Extended) {
	for _, h := range []*planner.Hook{in.PostCreate, in.PostUpdate} {
		if h == nil {
			continue
		}
		handler := "handshake"
		if h.HTTP != nil {
			handler = "http " + h.HTTP.String()
		}
		x.MemberHooks = append(x.MemberHooks, MemberHook{Name: h.Name, Handler: handler, Timeout: h.Timeout.String(), Proceed: h.Proceed})
	}
	x.ConfigReload = configReloadWords(in.Reload)
	for _, r := range in.Offline {
		if r.Low == r.High {
			x.Offline = append(x.Offline, fmt.Sprint(r.Low))
		} else {
			x.Offline = append(x.Offline, fmt.Sprintf("%d-%d", r.Low, r.High))
		}
	}
}

// memberJoinWords says what the member hooks hold.
func memberJoinWords(hooks []MemberHook) string {
	var parts []string
	for _, h := range hooks {
		policy := "Halt"
		if h.Proceed {
			policy = "Proceed"
		}
		when := "a pod the controller creates"
		if h.Name == "postUpdate" {
			when = "a pod updated in place"
		}
		parts = append(parts, fmt.Sprintf("%s (%s, timeout %s, failurePolicy %s) holds %s out of service", h.Name, h.Handler, h.Timeout, policy, when))
	}
	return strings.Join(parts, "; ") + " until it is Done; meanwhile the pod counts as unavailable, so the next pod waits."
}

// offlineWords says what the offline ordinals mean.
func offlineWords(offline []string) string {
	return fmt.Sprintf("%s: no pod, claims kept whatever whenScaled says; not counted as missing or unavailable. Remove an ordinal from spec.offlineOrdinals to start its pod again on the same claims.",
		strings.Join(offline, ", "))
}

// offlineOf is the set's spec.offlineOrdinals for the planner's layout;
// entries that do not parse are left out, as the controller leaves them.
func offlineOf(set *v1alpha1.StatefulSet) []planner.OrdinalRange {
	ranges, _ := v1alpha1.ParseOfflineOrdinals(set.Spec.OfflineOrdinals)
	out := make([]planner.OrdinalRange, 0, len(ranges))
	for _, r := range ranges {
		out = append(out, planner.OrdinalRange{Low: r.Low, High: r.High})
	}
	return out
}

// configReloadWords says what configRevisions apply Reload does; "" under
// Restart.
func configReloadWords(r *planner.Reload) string {
	if r == nil {
		return ""
	}
	hook := "no reload hook: a pod's revision label moves as soon as its live ConfigMaps hold the new data (for an application that watches its files)"
	if h := r.Hook; h != nil {
		handler, policy := "handshake", "Halt"
		if h.HTTP != nil {
			handler = "http " + h.HTTP.String()
		}
		if h.Proceed {
			policy = "Proceed"
		}
		hook = fmt.Sprintf("then the reload hook (%s, timeout %s, failurePolicy %s) tells the application, and the pod's revision label moves when it is Done", handler, h.Timeout, policy)
	}
	return "a change of ConfigMap data that the pods' volumes read keeps each pod running: its own live ConfigMaps get the new data, " + hook +
		"; one pod at a time within maxUnavailable, in the update order. A change the files cannot carry (a ConfigMap read through the environment, a Secret, anything else of the template) recreates the pod."
}
