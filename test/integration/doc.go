// Package integration runs Ordinal's StatefulSet controller, and upstream's
// for comparison, against one real in-process control plane: the upstream
// integration and simulated e2e scenarios, differential runs of the same
// scenario under both controllers, and a kubectl walk-through.
package integration
