// Package chaos runs randomised, seeded scenarios of scale-ups,
// scale-downs, rolling and partitioned updates, rollbacks, paused and
// resumed rollouts and broken and fixed templates, on apps/v1 sets and
// extended ones (apps.ordinal.dev, with random failure policies,
// self-healing, progress deadlines, Recreate and a primary-last update
// order while pods are relabelled primary), against
// Ordinal's controller running as real child processes, while killing
// them, failing their API calls, restarting the whole plane (an
// `ordinal up` child process: API server, etcd, controllers, nodes),
// handing the sets over mid-rollout to upstream's StatefulSet controller
// (its own process) and back, crashing and deleting pods, removing and
// failing nodes, and meeting the shapes real nodes take (a name unlike
// the hostname label, a node registered again under its name, a fence on
// a Ready node, no Ready condition), draining and cordoning nodes (by
// evictions and by eviction requests: the plane serves the
// EvictionRequest API) and asking pods to go with eviction requests
// alone; then it requires every set to converge with no invariant violated
// (package internal/invariant).
//
//	go test ./test/chaos/ -run TestChaos -v -args -runs=N -seed=S
//
// Each run prints one line and the test ends with
// `chaos: runs=N faults=F violations=V converged=C/N` (go test shows a
// passing package's output with -v, or when run inside the directory). A
// failing run prints its seed, why it did not converge, its violations and
// scenario, and keeps the observed history and controller logs under
// $TMPDIR/ordinal-chaos/<namespace>. Other flags: -ops, -fault-rate,
// -converge (the convergence bound, default 120s), -node-loss, -node-fail,
// -node-shapes, -handovers
// (steps of every run that are hand-overs, default 2: one each way),
// -trace. With -short no plane starts and only the unit tests of the
// suite's own checks run.
package chaos
