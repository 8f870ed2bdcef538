// Package invariant checks, from the outside, the promises a StatefulSet
// controller makes: at most one pod per identity, ordered creation and
// deletion, partitions, claim retention and data, and monotonic status.
//
// The checking logic is a pure core (Checker) fed with an event stream of
// observed object versions; Watch feeds it from the API server with one
// watch per resource kind, and Snapshot/CheckFinal and the volume markers
// add the checks that need the converged state or the disk. Every rule is
// documented next to its code and in rules.go's Rule constants.
package invariant
