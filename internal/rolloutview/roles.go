package rolloutview

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Roles is an extended set's spec.roles as the plan shows it.
type Roles struct {
	LabelKey string `json:"labelKey"`
	Values   []Role `json:"values"`
	// Switchover is true when lifecycle.switchover is set.
	Switchover bool `json:"switchover,omitempty"`
	// Probe is spec.roles.roleProbe, nil without one.
	Probe *RoleProbe `json:"probe,omitempty"`
}

// RoleProbe is spec.roles.roleProbe as the plan shows it.
type RoleProbe struct {
	// Endpoint is each pod's port and path, ":8080/role".
	Endpoint         string `json:"endpoint"`
	Period           string `json:"period"`
	Timeout          string `json:"timeout"`
	FailureThreshold int32  `json:"failureThreshold"`
}

// Role is one role value; Order is resolved (planner.LastRoleOrder for an
// exclusive role without updateOrder).
type Role struct {
	Name      string `json:"name"`
	Quorum    bool   `json:"quorum,omitempty"`
	Exclusive bool   `json:"exclusive,omitempty"`
	Order     int32  `json:"order"`
}

func rolesOf(in *planner.RoleSpec, switchover bool) *Roles {
	if in == nil {
		return nil
	}
	out := &Roles{LabelKey: in.LabelKey, Switchover: switchover}
	if p := in.Probe; p != nil {
		out.Probe = &RoleProbe{Endpoint: fmt.Sprintf(":%d%s", p.Port, p.Path), Period: p.Period.String(), Timeout: p.Timeout.String(),
			FailureThreshold: p.FailureThreshold}
	}
	for _, r := range in.Roles {
		out.Values = append(out.Values, Role{Name: r.Name, Quorum: r.Quorum, Exclusive: r.Exclusive, Order: r.Order})
	}
	return out
}

// rolesWords describes the roles on one line: each role with what it
// means, then how the update orders them.
func rolesWords(r *Roles) string {
	var out []string
	for _, v := range r.Values {
		var notes []string
		if v.Quorum {
			notes = append(notes, "quorum")
		}
		if v.Exclusive {
			notes = append(notes, "exclusive")
		}
		if v.Order == planner.LastRoleOrder {
			notes = append(notes, "order last")
		} else {
			notes = append(notes, fmt.Sprintf("order %d", v.Order))
		}
		out = append(out, fmt.Sprintf("%s=%s (%s)", r.LabelKey, v.Name, strings.Join(notes, ", ")))
	}
	words := strings.Join(out, "; ") + ". Lower orders are updated first; quorum roles keep a majority of their members Available"
	if r.Switchover {
		words += "; an exclusive role's holder is disrupted only after lifecycle.switchover has moved its role"
	}
	words += "."
	if p := r.Probe; p != nil {
		words += fmt.Sprintf(" The controller writes each pod's %s label from its answer to GET %s every %s (timeout %s); a pod whose probe fails %d times in a row loses the label.",
			r.LabelKey, p.Endpoint, p.Period, p.Timeout, p.FailureThreshold)
	}
	return words
}

// markRoles gives each cell its pod's role label under spec.roles, and
// what its failing role probe records.
func markRoles(cells []Cell, set *v1alpha1.StatefulSet, pods []*corev1.Pod) {
	if set.Spec.Roles == nil {
		return
	}
	roles := make(map[string]string, len(pods))
	probes := map[string]string{}
	for _, p := range pods {
		if v, ok := p.Labels[set.Spec.Roles.LabelKey]; ok {
			roles[p.Name] = v
		}
		if note, ok := p.Annotations[v1alpha1.RoleProbeAnnotation]; ok {
			probes[p.Name] = probeWords(note)
		}
	}
	for i := range cells {
		cells[i].Role = roles[cells[i].Pod]
		cells[i].RoleProbe = probes[cells[i].Pod]
	}
}

// probeWords says what a pod's role-probe annotation records.
func probeWords(note string) string {
	var run v1alpha1.RoleProbeFailure
	if err := json.Unmarshal([]byte(note), &run); err != nil {
		return "role probe failing"
	}
	if run.Cleared {
		return fmt.Sprintf("role probe failing since %s (%s): label removed", run.Since, run.Reason)
	}
	return fmt.Sprintf("role probe failing since %s (%s)", run.Since, run.Reason)
}
