package doctor

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s (run with -update to create it): %v", path, err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; run with -update to accept):\n%s", path, diff)
	}
}

func TestTheReportPrintsOneLinePerCheckAndTheVerdictOfTheWorst(t *testing.T) {
	ok := Result{Check: "API server", Status: OK, Message: "https://cluster.example:6443, kubernetes v1.36.3"}
	warn := Result{Check: "extended kind CRD", Status: Warn, Message: "not installed"}
	unknown := Result{Check: "RBAC", Status: Unknown, Message: "cannot check: forbidden"}
	fail := Result{Check: "built-in controller", Status: Fail, Message: "running"}
	fail2 := Result{Check: "Ordinal controller", Status: Fail, Message: "not running"}
	for _, tc := range []struct {
		name     string
		report   Report
		wantCode int
	}{
		{"all-ok", Report{ok}, exit.OK},
		{"warned", Report{ok, warn}, exit.OK},
		{"unknown", Report{ok, warn, unknown}, CannotCheck},
		{"failed", Report{ok, fail, fail2, warn, unknown}, exit.Failure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			tc.report.Print(&out)
			golden(t, "report-"+tc.name+".txt", out.String())
			code := exit.OK
			if err := tc.report.Err(); err != nil {
				code = exit.Code(err)
			}
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d", code, tc.wantCode)
			}
		})
	}
}
