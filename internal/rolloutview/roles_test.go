package rolloutview

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// The plan says who writes the role label when spec.roles.roleProbe is
// set, and a pod whose probe fails shows since when and why in its cell.
func TestTheRoleProbeIsExplainedInThePlanAndTheCells(t *testing.T) {
	words := rolesWords(rolesOf(&planner.RoleSpec{LabelKey: "role", Roles: []planner.Role{{Name: "leader", Exclusive: true, Order: planner.LastRoleOrder}},
		Probe: &planner.RoleProbe{Port: 8080, Path: "/role", Period: 5 * time.Second, Timeout: time.Second, FailureThreshold: 3}}, false))
	want := "The controller writes each pod's role label from its answer to GET :8080/role every 5s (timeout 1s); a pod whose probe fails 3 times in a row loses the label."
	if !strings.HasSuffix(words, want) {
		t.Errorf("roles: %q, want it to end %q", words, want)
	}
	if w := rolesWords(rolesOf(&planner.RoleSpec{LabelKey: "role", Roles: []planner.Role{{Name: "leader"}}}, false)); strings.Contains(w, "GET") {
		t.Errorf("without a probe: %q", w)
	}

	r := newRollout()
	view, ext := extendedOf(t, r.set, primaryRole, func(s *v1alpha1.StatefulSet) {
		s.Spec.Roles.RoleProbe = &v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: 8080}}
	})
	pods := primaryAt0(r)
	pods[1].Annotations = map[string]string{v1alpha1.RoleProbeAnnotation: `{"since":"2026-11-26T12:00:00Z","reason":"HTTP 503"}`}
	pods[2].Annotations = map[string]string{v1alpha1.RoleProbeAnnotation: `{"since":"2026-11-26T12:00:00Z","reason":"connection refused","cleared":true}`}
	snap := NewExtendedSnapshot(view, ext, nil, pods, nil, "")
	got := []string{snap.Cells[0].RoleProbe, snap.Cells[1].RoleProbe, snap.Cells[2].RoleProbe}
	wantCells := []string{"", "role probe failing since 2026-11-26T12:00:00Z (HTTP 503)",
		"role probe failing since 2026-11-26T12:00:00Z (connection refused): label removed"}
	for i := range got {
		if got[i] != wantCells[i] {
			t.Errorf("cell %d: %q, want %q", i, got[i], wantCells[i])
		}
	}
	var out bytes.Buffer
	renderCells(&out, snap)
	if !strings.Contains(out.String(), "role probe failing since 2026-11-26T12:00:00Z (HTTP 503)") {
		t.Errorf("rendered cells:\n%s", out.String())
	}
}
