// Package play plays a proposed change on a copy of a set in a fresh
// local plane, in this process: it builds the copy (the source's nodes,
// classes, Services, budgets, claims and the set), makes the simulated
// pods play the learned timings, and runs the rollout once per contender
// (upstream's StatefulSet controller, Ordinal's, Ordinal's extended kind),
// one after another, each alone on the copy's nodes, observing its pods,
// the planner's waits and the controller's writes.
package play
