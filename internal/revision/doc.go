// Package revision turns a StatefulSet's pod template into ControllerRevisions
// exactly as the upstream controller does, so that Ordinal and the upstream
// controller can take over each other's sets without rolling a single pod.
//
// Everything here is pure: it computes revision data, hashes, names and the
// single history write a sync needs, and leaves the API calls to the caller.
// Byte-identical output matters because revision names end up in the
// controller-revision-hash label of every pod: a different byte changes the
// hash, and a different hash restarts every pod of the set.
package revision
