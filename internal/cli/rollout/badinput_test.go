package rollout_test

import (
	"testing"
)

// TestBadInput checks that each mistake gets one clear line, its exit
// code, and changes nothing.
func TestBadInput(t *testing.T) {
	ns := namespace(t)
	before := createWeb(t, ns)
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"an unknown set is not found", []string{"rollout", "status", "nope"}, 3,
			`ordinal: statefulsets.apps "nope" not found`},
		{"another kind is refused", []string{"rollout", "undo", "deployment/x"}, 2,
			"ordinal: deployment/x: only statefulsets are supported"},
		{"a missing set argument is a usage error", []string{"rollout", "history"}, 2,
			"ordinal: expected one statefulset name, got 0 arguments"},
		{"an unknown output format is a usage error", []string{"rollout", "plan", "web", "-o", "xml"}, 2,
			`ordinal: unknown output format "xml": use json or yaml`},
		{"an unreachable server is reported by address", []string{"rollout", "history", "web", "--server", "https://127.0.0.1:1"}, 5,
			"ordinal: cannot reach the API server at https://127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"missing permissions are forbidden", []string{"rollout", "undo", "web", "--as", "nobody"}, 4,
			`ordinal: statefulsets.apps "web" is forbidden: User "nobody" cannot get resource "statefulsets" in API group "apps" in the namespace "` + ns + `"`},
		{"a revision that does not exist is not found", []string{"rollout", "history", "web", "--revision", "9"}, 3,
			"ordinal: unable to find specified revision 9 in history"},
		{"undo without history to go back to is not found", []string{"rollout", "undo", "web"}, 3,
			"ordinal: no last revision to roll back to"},
		{"diff of a missing revision is not found", []string{"rollout", "diff", "web", "1", "4"}, 3,
			"ordinal: unable to find specified revision 4 in history"},
		{"a negative revision is a usage error", []string{"rollout", "undo", "web", "--to-revision", "-1"}, 2,
			"ordinal: unable to find specified revision -1 in history"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ordinal(t, ns, tt.args...)
			if r.code != tt.code || r.err != tt.err+"\n" || r.out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit %d, stderr %q", r.code, r.err, r.out, tt.code, tt.err)
			}
		})
	}
	if after := getSet(t, ns); after.Generation != before.Generation {
		t.Errorf("a bad command changed the set: generation %d -> %d", before.Generation, after.Generation)
	}
}
