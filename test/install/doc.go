// Package install tests the ways Ordinal goes into a real cluster against
// one in-process control plane: the Helm chart (charts/ordinal) rendered
// with its values and compared with golden files, config/ built with
// kustomize, both applied with a server-side dry run, their RBAC kept equal
// and sufficient, and `ordinal doctor` on a cluster Ordinal has taken over.
package install
