package rolloutview

import (
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
	return words + "."
}

// markRoles gives each cell its pod's role label under spec.roles.
func markRoles(cells []Cell, set *v1alpha1.StatefulSet, pods []*corev1.Pod) {
	if set.Spec.Roles == nil {
		return
	}
	roles := make(map[string]string, len(pods))
	for _, p := range pods {
		if v, ok := p.Labels[set.Spec.Roles.LabelKey]; ok {
			roles[p.Name] = v
		}
	}
	for i := range cells {
		cells[i].Role = roles[cells[i].Pod]
	}
}
