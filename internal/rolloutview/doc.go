// Package rolloutview turns observed StatefulSet state into what
// `ordinal rollout` and the dashboard show: status snapshots with one cell
// per ordinal, the revision history, the planner's explanation and
// template diffs. Everything here is pure (no client, no clock: callers
// pass "now") so the output is tested with golden files; it decides no
// write (setops does).
package rolloutview
