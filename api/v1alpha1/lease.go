package v1alpha1

// LeaseLabelManageAppsV1 is the label on the controller's leader-election
// Lease in which the leader says whether it manages apps/v1 StatefulSets:
// "true", or "false" with --manage-apps-v1=false (then only the extended
// kind, beside the built-in controller). Each leader writes it when it
// takes the Lease and at every renewal, so it always describes the
// current one; `ordinal doctor` reads it.
const LeaseLabelManageAppsV1 = "controller.ordinal.dev/manage-apps-v1"
