package rolloutview

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// renderExtendedState writes, under the cells of an extended set, its
// pause, its conditions and the pods its rollout is blocked by.
func renderExtendedState(w io.Writer, s Snapshot) {
	x := s.Extended
	if x.Paused {
		fmt.Fprintf(w, "paused: no pod is updated until `ordinal rollout resume osts/%s`\n", s.Name)
	}
	if h := x.Hold; h != nil {
		fmt.Fprintf(w, "held: %s\nto go on: %s\n", HoldLine(h), h.Next)
	}
	if len(x.Conditions) > 0 {
		fmt.Fprintln(w, "conditions:")
		renderConditions(w, x.Conditions)
	}
	for _, b := range x.BlockedBy {
		fmt.Fprintf(w, "blocked by %s\n", BlockedLine(b))
	}
	renderClaims(w, x.Claims)
}

// renderClaims lists an InPlace set's claims by ordinal: "ok" for one
// that matches its template, "…" for one still to do, and its state.
func renderClaims(w io.Writer, claims []ClaimState) {
	if len(claims) == 0 {
		return
	}
	fmt.Fprintln(w, "claims (InPlace):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range claims {
		mark := "…"
		if c.Matches {
			mark = "ok"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Pod, c.Claim, mark, c.State)
	}
	_ = tw.Flush()
}

func renderConditions(w io.Writer, conds []Condition) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range conds {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	_ = tw.Flush()
}

// BlockedLine describes a blocked pod in one line: "web-2 (revision
// web-5c9f486cd7): CrashLoopBackOff, permanent, since …: message".
func BlockedLine(b Blocked) string {
	line := b.Pod
	if b.Revision != "" {
		line += " (revision " + b.Revision + ")"
	}
	line += ": " + b.Reason
	if b.Permanent {
		line += ", permanent"
	}
	if !b.Since.IsZero() {
		line += ", since " + b.Since.Format(time.RFC3339)
	}
	if b.Message != "" {
		line += ": " + b.Message
	}
	return line
}
