package rolloutview

import (
	"strings"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// `rollout plan` says how a set under configRevisions apply Reload brings
// new data to its pods, and nothing under Restart.
func TestThePlanExplainsAReload(t *testing.T) {
	var x ExtendedPlan
	fillMembers(&x, &planner.Extended{})
	if x.ConfigReload != "" {
		t.Errorf("under Restart the plan says %q", x.ConfigReload)
	}
	hook := &planner.Hook{Name: "reload", Timeout: 2 * time.Minute, HTTP: &planner.HookEndpoint{URL: "http://agent.ops.svc/reload?token=t"}}
	fillMembers(&x, &planner.Extended{Reload: &planner.Reload{Hook: hook}})
	for _, want := range []string{"keeps each pod running", "reload hook (http http://agent.ops.svc/reload, timeout 2m0s, failurePolicy Halt)",
		"one pod at a time within maxUnavailable", "read through the environment"} {
		if !strings.Contains(x.ConfigReload, want) {
			t.Errorf("the plan's words %q do not say %q", x.ConfigReload, want)
		}
	}
	if strings.Contains(x.ConfigReload, "token") {
		t.Errorf("the plan shows the hook URL's query: %q", x.ConfigReload)
	}
	fillMembers(&x, &planner.Extended{Reload: &planner.Reload{}})
	if !strings.Contains(x.ConfigReload, "no reload hook") {
		t.Errorf("without a hook the plan says %q", x.ConfigReload)
	}
}
