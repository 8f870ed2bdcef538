package doctor

import (
	"bytes"
	"testing"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/golden"
)

func TestTheReportPrintsOneLinePerCheckAndTheVerdictOfTheWorst(t *testing.T) {
	ok := Result{Check: "API server", Status: OK, Message: "https://cluster.example:6443, kubernetes v1.36.3"}
	info := Result{Check: "built-in controller", Status: Info, Message: "running, as it must here"}
	gateInfo := Result{Check: "maxUnavailable gate", Status: Info, Message: "off for apps/v1 sets"}
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
		{"informed", Report{ok, info}, exit.OK},
		{"informed-twice", Report{ok, info, gateInfo}, exit.OK},
		{"warned", Report{ok, info, warn}, exit.OK},
		{"unknown", Report{ok, warn, unknown}, CannotCheck},
		{"failed", Report{ok, fail, fail2, warn, unknown}, exit.Failure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			tc.report.Print(&out)
			golden.Check(t, "report-"+tc.name+".txt", out.String())
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
