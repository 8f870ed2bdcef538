package v1alpha1

// PartitionMode says how rollingUpdate.partition is counted.
//
// +kubebuilder:validation:Enum=Ordinal;Count
type PartitionMode string

// Partition modes.
const (
	// PartitionOrdinal keeps the pods below ordinal start + partition at
	// the current revision, as apps/v1 does, whatever the update order.
	PartitionOrdinal PartitionMode = "Ordinal"
	// PartitionCount keeps partition pods at the current revision: the
	// last partition pods of the update order (priority rules, then
	// highest ordinal first), counted over the set's ordinals, reserved
	// ones left out. Pods already at the update revision, and pods being
	// replaced (terminating or missing), come first in that order, so a
	// pod once chosen stays chosen while it is replaced.
	PartitionCount PartitionMode = "Count"
)
