// Package alongside tests Ordinal as it runs on a managed cluster, where
// the built-in StatefulSet controller cannot be turned off: against an
// in-process control plane that runs the built-in controller, Ordinal runs
// with --manage-apps-v1=false. Each controller runs its own kind and
// leaves the other's alone, and `ordinal doctor` says so.
package alongside
