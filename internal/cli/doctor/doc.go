// Package doctor is `ordinal doctor`: against any kubeconfig, it checks
// that Ordinal has taken over StatefulSets in the cluster — the built-in
// controller no longer runs, Ordinal's does, its CRD (installed and
// Established) and RBAC are in place, and whether the API server keeps
// maxUnavailable — and prints one line per check and a verdict. Where
// Ordinal runs with --manage-apps-v1=false (the label its leader keeps on
// the Lease says so), it manages only the extended kind beside the
// built-in controller: that controller running is then expected, and its
// check only informs. It only reads, apart from one server-side dry-run
// create, which the API server never persists.
//
// Exit codes (beyond package exit's 0, 1, 2 and 130):
//
//	0  no check failed (warnings and notes may remain)
//	1  a check failed: Ordinal has not (fully) taken over
//	4  nothing failed, but a check could not be made (a permission your user
//	   lacks, or an API error)
//	5  the API server cannot be reached, or refused the credentials
package doctor
