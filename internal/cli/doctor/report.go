package doctor

import (
	"fmt"
	"io"
	"strings"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
)

// Exit codes of doctor; see the package comment.
const (
	CannotCheck = 4
	Unreachable = 5
)

// Status is a check's outcome.
type Status int

// The outcomes, mildest first.
const (
	// OK: the check passed.
	OK Status = iota
	// Info: nothing to pass or fail, worth knowing (the built-in
	// controller running beside an Ordinal that leaves apps/v1 sets to
	// it); as good as OK for the verdict.
	Info
	// Warn: worth knowing, not a reason to fail (an optional feature is
	// off, or evidence is missing where it cannot be had).
	Warn
	// Unknown: the check could not be made: a permission your user lacks,
	// or an API error.
	Unknown
	// Fail: the check failed.
	Fail
)

func (s Status) String() string {
	return [...]string{"ok", "info", "warn", "??", "FAIL"}[s]
}

// Result is one check's line.
type Result struct {
	Check   string
	Status  Status
	Message string
}

// Report is every check's result, in the order they print.
type Report []Result

// Print writes one line per check, then the verdict.
func (r Report) Print(w io.Writer) {
	for _, res := range r {
		fmt.Fprintf(w, "%-5s %-20s %s\n", res.Status, res.Check, res.Message)
	}
	fmt.Fprintln(w, r.verdict())
}

func (r Report) worst() Status {
	worst := OK
	for _, res := range r {
		worst = max(worst, res.Status)
	}
	return worst
}

func (r Report) named(s Status) []string {
	var names []string
	for _, res := range r {
		if res.Status == s {
			names = append(names, res.Check)
		}
	}
	return names
}

func (r Report) verdict() string {
	switch r.worst() {
	case Fail:
		return fmt.Sprintf("verdict: NOT READY, %s failed", list(r.named(Fail)))
	case Unknown:
		return fmt.Sprintf("verdict: UNKNOWN, %s could not be checked with your permissions", list(r.named(Unknown)))
	case Warn:
		return r.okSee("warning", Warn)
	case Info:
		return r.okSee("note", Info)
	}
	return "verdict: OK, Ordinal runs StatefulSets"
}

// okSee is the OK verdict pointing at the checks of status s, each a noun.
func (r Report) okSee(noun string, s Status) string {
	named := r.named(s)
	if len(named) > 1 {
		noun += "s"
	}
	return fmt.Sprintf("verdict: OK, Ordinal runs StatefulSets (see the %s about %s)", noun, list(named))
}

// Err gives the report's exit code: nil when no check failed or was left
// unknown, else an error naming the checks.
func (r Report) Err() error {
	switch r.worst() {
	case Fail:
		return exit.With(exit.Failure, fmt.Errorf("not ready: %s failed", list(r.named(Fail))))
	case Unknown:
		return exit.With(CannotCheck, fmt.Errorf("%s could not be checked with your permissions", list(r.named(Unknown))))
	}
	return nil
}

func list(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
