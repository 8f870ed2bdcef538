// Package benchcmd implements `ordinal bench`, which compares StatefulSet
// controllers on fresh embedded planes, and the hidden helper commands it
// runs as child processes: bench-plane, bench-builtin-controller and
// bench-floor.
package benchcmd
