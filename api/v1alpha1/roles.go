package v1alpha1

// MaxRoles is the most role values spec.roles.values holds.
const MaxRoles = 16

// Roles tells the controller what each pod is to the application: a pod
// label whose value names the pod's role (leader, follower, learner, …),
// written by whoever knows the truth (the application itself, an operator,
// a sidecar), and what each role means for the rolling update.
//
// The controller reads the label from the live pods and never writes it,
// unless roleProbe asks it to: then it calls each pod and writes the
// label from the answer. A pod without the label, or with a value not listed here, has no role:
// it is updated first (order 0) and is not a quorum member, but while any
// role is a quorum role it counts towards the quorum's size (see Role).
//
// +kubebuilder:validation:XValidation:rule="!self.labelKey.startsWith('apps.ordinal.dev/') && !self.labelKey.startsWith('statefulset.kubernetes.io/') && !self.labelKey.startsWith('apps.kubernetes.io/') && self.labelKey != 'controller-revision-hash'",message="spec.roles.labelKey must not be a label the controllers write (apps.ordinal.dev/*, statefulset.kubernetes.io/*, apps.kubernetes.io/*, controller-revision-hash)",fieldPath=`.labelKey`
type Roles struct {
	// LabelKey is the pod label whose value is the pod's role, such as
	// "role" or "example.com/role". It must not be one of the selector's
	// keys: a pod whose role changes would leave the set.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$') && (self.indexOf('/') < 0 || self.indexOf('/') <= 253)",message="spec.roles.labelKey must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
	LabelKey string `json:"labelKey"`
	// Values are the roles, by the label's value. At most 16, names
	// unique.
	//
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +listType=map
	// +listMapKey=name
	Values []Role `json:"values"`
	// RoleProbe makes the controller learn each pod's role by asking the
	// pod, and write the label itself. Leave it unset when the
	// application, an operator or a sidecar writes the label.
	//
	// +optional
	RoleProbe *RoleProbe `json:"roleProbe,omitempty"`
}

// RoleProbe is how the controller asks each pod for its role: every
// periodSeconds it sends GET http://<pod IP>:<port><path> to every running
// pod with an address, and a 200 answer whose body (surrounding white
// space trimmed) is the role name sets the pod's labelKey label to it; an
// empty body removes the label (the pod has no role). Any other answer,
// a body that is not a label value, a refused connection or no answer
// within timeoutSeconds is a failure: the label stays as it is until
// failureThreshold probes in a row have failed, and is then removed. The
// calls follow the address policy of http hooks and carry no credentials.
//
// +kubebuilder:validation:XValidation:rule="self.timeoutSeconds <= self.periodSeconds",message="spec.roles.roleProbe.timeoutSeconds must not exceed periodSeconds"
type RoleProbe struct {
	// HTTP is where each pod answers.
	HTTP RoleProbeHTTP `json:"http"`
	// PeriodSeconds is how often each pod is asked. Defaults to 5.
	//
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +optional
	PeriodSeconds int32 `json:"periodSeconds,omitempty"`
	// TimeoutSeconds bounds one call. Defaults to 1; at most periodSeconds.
	//
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=60
	// +optional
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`
	// FailureThreshold is how many probes of a pod must fail in a row
	// before its label is removed. Defaults to 3.
	//
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	FailureThreshold int32 `json:"failureThreshold,omitempty"`
}

// RoleProbeHTTP is the port and path of each pod's role endpoint.
type RoleProbeHTTP struct {
	// Port is the pod's port, as a number.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
	// Path is the request's path (and query). Defaults to /role.
	//
	// +kubebuilder:default="/role"
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/') && !self.contains('#') && !self.contains(' ')",message="spec.roles.roleProbe.http.path must start with '/' and hold no '#' or space"
	// +optional
	Path string `json:"path,omitempty"`
}

// Role probe defaults, as the schema sets them.
const (
	DefaultRoleProbePeriod    = 5
	DefaultRoleProbeTimeout   = 1
	DefaultRoleProbeThreshold = 3
	DefaultRoleProbePath      = "/role"
)

// RoleProbeAnnotation is the annotation the controller keeps on a pod
// whose role probe fails: JSON RoleProbeFailure. It is removed at the
// next probe that succeeds.
const RoleProbeAnnotation = "apps.ordinal.dev/role-probe"

// RoleProbeFailure is a pod's RoleProbeAnnotation.
type RoleProbeFailure struct {
	// Since is when the first failed probe of the run was made.
	Since string `json:"since"`
	// Reason is the first failure's short reason.
	Reason string `json:"reason"`
	// Cleared is true once the run reached failureThreshold and the
	// role label was removed.
	Cleared bool `json:"cleared,omitempty"`
}

// RoleProbeFieldManager is the field manager of the controller's writes
// of role labels and RoleProbeAnnotation.
const RoleProbeFieldManager = "ordinal-role-probe"

// Role is one value of the role label and what it means.
type Role struct {
	// Name is the label's value, such as "leader".
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$')",message="spec.roles.values[].name must be a label value: at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
	Name string `json:"name"`
	// Quorum makes the role's pods quorum members. The controller never
	// disrupts a pod (deletes it for an update, a request or self-healing
	// of a Ready pod, or takes it out of service for an update in place)
	// when that would leave fewer than a majority of the quorum Available,
	// whatever maxUnavailable allows. The quorum's size is the set's
	// replicas less the pods labelled with a role that is not a quorum
	// role: a pod without a role (just created, not yet joined) counts
	// towards the size but not as Available. Scale-in, which changes the
	// membership on purpose, and the Recreate strategy, which takes every
	// pod down by design, are not limited.
	//
	// +optional
	Quorum bool `json:"quorum,omitempty"`
	// Exclusive says at most one pod holds the role at a time (a leader, a
	// primary). While two or more pods hold it, the set reports a Warning
	// event and the RoleConflict condition, and the controller takes no
	// disruptive action on any of them until one lets go. Before the
	// controller disrupts the holder, lifecycle.switchover (when set) asks
	// for the role to move.
	//
	// +optional
	Exclusive bool `json:"exclusive,omitempty"`
	// UpdateOrder places the role's pods in the rolling update: roles of
	// lower order are updated first, then rollingUpdate.priority orders
	// the pods of one order, and then the highest ordinal goes first.
	// Defaults to 0, and for an exclusive role to after every other role
	// (the leader last). Pods without a role have order 0.
	//
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +optional
	UpdateOrder *int32 `json:"updateOrder,omitempty"`
}

// Condition of the extended kind about roles.
const (
	// ConditionRoleConflict is True while two or more pods hold one
	// exclusive role, False when none does, and absent without roles.
	ConditionRoleConflict = "RoleConflict"
)

// SwitchoverHookLabel is the hook label (and annotation) of
// lifecycle.switchover, as PreUpdateHookLabel is preUpdate's.
const SwitchoverHookLabel = "apps.ordinal.dev/switchover"
