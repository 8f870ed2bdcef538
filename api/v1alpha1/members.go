package v1alpha1

import (
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Member hook labels: as PreUpdateHookLabel, the label holds the hook's
// state on the pod and the annotation of the same key its HookRecord.
const (
	PostCreateHookLabel = "apps.ordinal.dev/post-create"
	PostUpdateHookLabel = "apps.ordinal.dev/post-update"
)

// MaxMembers is how many entries status.members holds at most. A larger
// set lists the members that need attention first (offline, missing, not
// Ready, not at the update revision, claims not in step, a hook under
// way), then the others by ordinal, up to the limit, and counts the rest
// in status.membersOmitted.
const MaxMembers = 100

// Member states, as status.members says them.
const (
	MemberRunning     = "Running"
	MemberPending     = "Pending"
	MemberMissing     = "Missing"
	MemberOffline     = "Offline"
	MemberTerminating = "Terminating"
	MemberFailed      = "Failed"
	MemberSucceeded   = "Succeeded"
)

// MemberStatus is one member of the set: an ordinal and its pod.
type MemberStatus struct {
	// Ordinal is the member's ordinal.
	Ordinal int32 `json:"ordinal"`
	// Pod is the pod's name (<set>-<ordinal>), whether or not it exists.
	Pod string `json:"pod"`
	// State is Running, Pending, Missing (no pod yet), Offline
	// (spec.offlineOrdinals), Terminating, Failed or Succeeded.
	State string `json:"state"`
	// Revision is the revision the pod runs; empty without a pod.
	//
	// +optional
	Revision string `json:"revision,omitempty"`
	// Ready is the pod's Ready condition.
	Ready bool `json:"ready"`
	// UpToDate says the pod runs the update revision.
	UpToDate bool `json:"upToDate"`
	// ClaimsInStep says each of the member's claims exists and matches
	// its volumeClaimTemplate (status.volumeClaims counts the same);
	// true for a set without claim templates.
	ClaimsInStep bool `json:"claimsInStep"`
	// Hooks are the lifecycle hooks the pod carries a label of, with
	// their state: Pending, Done or Failed.
	//
	// +optional
	// +listType=map
	// +listMapKey=name
	Hooks []MemberHook `json:"hooks,omitempty"`
	// Role is the pod's value of spec.roles.labelKey, as the pod carries
	// it; empty without spec.roles or without the label.
	//
	// +optional
	Role string `json:"role,omitempty"`
}

// MemberHook is one lifecycle hook's state on a member's pod.
type MemberHook struct {
	// Name is preUpdate, preDelete, postCreate or postUpdate.
	Name string `json:"name"`
	// State is the hook label's value: Pending, Done or Failed.
	State string `json:"state"`
}

// ParseOfflineOrdinals reads spec.offlineOrdinals as
// ParseReserveOrdinals reads spec.reserveOrdinals.
func ParseOfflineOrdinals(list []intstr.IntOrString) ([]OrdinalRange, error) {
	return parseOrdinalList("spec.offlineOrdinals", list)
}
