package doctor

import (
	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// extendedOnlyNote ends the lines of checks that read differently when
// Ordinal leaves apps/v1 StatefulSets to the built-in controller.
const extendedOnlyNote = "Ordinal runs with --manage-apps-v1=false and leaves apps/v1 StatefulSets to it"

// extendedOnly reports whether the Lease's holder runs with
// --manage-apps-v1=false, as the label each leader keeps on its Lease
// says: it then manages only the extended kind, beside the built-in
// controller. No Lease, or one without the label (a controller without
// the flag), means Ordinal manages apps/v1 StatefulSets too.
func extendedOnly(l *coordinationv1.Lease) bool {
	return l != nil && l.Labels[v1alpha1.LeaseLabelManageAppsV1] == "false"
}
