// Package setops reads a StatefulSet's pods, claims and revisions through
// the API and performs the rollout operations `ordinal rollout` offers —
// pause, resume, undo, restart, and removing or replacing chosen pods of
// an extended set — and the planner's explanation. The CLI
// and the dashboard both call it, so they act and explain identically.
// Every write goes through the caller's client, with its user's
// permissions; nothing here holds state between calls. What an operation
// does differently for each kind of set is a method of that kind's door
// (door.go), so no operation can leave a kind out.
package setops
