// Package forecast turns what a rehearsal observed — each pod's states
// over time, what the planner said the rollout waited for, the writes
// each controller made — into a forecast per controller (total time,
// fewest Ready and Available pods, waits and why, writes) and renders it
// as text, JSON, an SVG timeline by ordinal, revision and readiness, and
// one verdict line. It is pure: no client, no clock.
package forecast
