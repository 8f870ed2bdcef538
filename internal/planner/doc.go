// Package planner is the StatefulSet algorithm as a pure function: from the
// observed set, its pods, claims and resolved revisions to an ordered plan of
// API actions, each with the reason it is taken, plus the status to write,
// what the rollout is waiting for and what looks wrong.
//
// The planner has no client, no clock and no goroutines. An executor carries
// out Plan.Steps; the CLI uses the same plan to explain "what happens next,
// and why is it waiting". Behaviour follows the upstream controller of
// Kubernetes 1.37 (pkg/controller/statefulset), with the fixes Ordinal
// adopts from later releases called out where they apply. Where an older
// release's controller behaves otherwise and the set does not show which
// release admitted it, Input.Release says (release.go).
//
// What a plan costs follows the pods that exist, never spec.replicas: the
// set's ordinals are a Layout, and a missing ordinal's pod is built only
// by the pass that acts on it (at most MaxCreates of them a plan).
package planner
