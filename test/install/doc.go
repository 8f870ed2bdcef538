// Package install tests the ways Ordinal goes into a real cluster against
// one in-process control plane: the Helm chart (charts/ordinal) rendered
// with its values and compared with golden files, config/ built with
// kustomize (and with its component config/extended-only), both applied
// with a server-side dry run together with the extended kind's CRD, their
// RBAC kept equal and sufficient, the controller run with the chart's
// manageAppsV1 false, and `ordinal doctor` on a cluster Ordinal has taken
// over. Package alongside runs Ordinal beside the built-in controller.
package install
