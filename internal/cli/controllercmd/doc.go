// Package controllercmd implements `ordinal controller`: Ordinal's
// StatefulSet controller against any cluster, with leader election on a
// Lease, Prometheus metrics and health endpoints. The controller's own
// options (client, limits, workers) live in package controller; this
// package adds only what a deployed process needs around it.
package controllercmd
