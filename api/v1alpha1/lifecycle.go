package v1alpha1

import "time"

// Lifecycle holds the hooks the controller runs before it disturbs a
// running pod, and after it created or updated one.
type Lifecycle struct {
	// PreUpdate runs before the rolling update changes a pod: before its
	// readiness gate goes False for an update in place, or before it is
	// deleted to be recreated at a new revision (the Recreate strategy and
	// self-healing included). A change of labels and annotations alone,
	// which disturbs nothing, runs no hook.
	//
	// +optional
	PreUpdate *LifecycleHook `json:"preUpdate,omitempty"`
	// PreDelete runs before the controller deletes a running pod: for
	// scale-in, a reserved ordinal, a pod labelled
	// apps.ordinal.dev/delete-requested, and a pod the rolling update
	// recreates (after preUpdate). A Failed or Succeeded pod, which runs
	// nothing, is replaced without it.
	//
	// +optional
	PreDelete *LifecycleHook `json:"preDelete,omitempty"`
	// Switchover runs before the controller disrupts (updates, deletes)
	// the pod that holds an exclusive role of spec.roles, before its
	// preUpdate and preDelete hooks: it asks for the role to move, and is
	// done only once the role label is on another Ready pod of the set and
	// no longer on this one. A 2xx answer of an http hook, or a handshake
	// labelled Done, says the request was taken; the hook still waits for
	// the label to move, until its timeout.
	//
	// +optional
	Switchover *LifecycleHook `json:"switchover,omitempty"`
	// PostCreate runs once a pod the controller created has its
	// containers Ready (members.go): the pod stays out of its Services
	// (the controller's readiness gate False) and counts as unavailable
	// until the hook is Done, so the next pod is not created or updated
	// before this one has joined.
	//
	// +optional
	PostCreate *LifecycleHook `json:"postCreate,omitempty"`
	// PostUpdate runs once an update in place of a pod has taken, before
	// the pod returns to service, as postCreate does for a new pod.
	//
	// +optional
	PostUpdate *LifecycleHook `json:"postUpdate,omitempty"`
	// Reload runs under configRevisions apply Reload, once a pod's live
	// ConfigMaps hold a new revision's data: it tells the application to
	// read its files again. The pod's revision label moves to the new
	// revision only when it is Done (or failed under Proceed); until then
	// the pod counts against maxUnavailable.
	//
	// +optional
	Reload *LifecycleHook `json:"reload,omitempty"`
}

// LifecycleHook is one hook: a handler, how long it may take, and what
// happens when it fails or times out.
//
// +kubebuilder:validation:XValidation:rule="[has(self.handshake), has(self.http), has(self.service)].filter(x, x).size() == 1",message="a lifecycle hook has exactly one handler: set one of handshake, http or service"
type LifecycleHook struct {
	// Handshake labels the pod <hook label>=Pending and waits until
	// another actor (an operator, a sidecar, a person with kubectl)
	// relabels it Done, or Failed.
	//
	// +optional
	Handshake *HandshakeHook `json:"handshake,omitempty"`
	// HTTP POSTs a JSON HookRequest to a URL and counts any 2xx answer as
	// done; any other answer, or none, is retried with a growing pause
	// (1 s doubling to 10 s) until the timeout. The call may be made more
	// than once for one pod (after a controller restart, say), so the
	// receiver should treat a repeated request as success. The controller
	// refuses addresses its configuration does not allow (loopback,
	// link-local, cloud metadata, the API server's and its own), follows
	// no redirect, and records only the status code, never the answer.
	//
	// +optional
	HTTP *HTTPHook `json:"http,omitempty"`
	// Service calls a Service of the set's own namespace as HTTP does a
	// URL: the controller picks a ready endpoint of the Service's port.
	//
	// +optional
	Service *ServiceHook `json:"service,omitempty"`
	// TimeoutSeconds bounds the hook, counted from when the pod was
	// labelled Pending. Defaults to 300.
	//
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	// +optional
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`
	// FailurePolicy is what a hook that fails (Failed) or times out does:
	// Halt (the default) leaves the pod alone for good, reports it in
	// status.blockedBy and a Warning event, and fails the rollout (which
	// then follows rollingUpdate.onFailure); Proceed records a Warning and
	// goes on as if the hook had answered Done. A Halt clears when the pod
	// is labelled Done, or when the label is removed (the hook then runs
	// again).
	//
	// +kubebuilder:default=Halt
	// +optional
	FailurePolicy HookFailurePolicy `json:"failurePolicy,omitempty"`
}

// HandshakeHook waits for another actor to relabel the pod.
type HandshakeHook struct{}

// HTTPHook calls a URL.
//
// +kubebuilder:validation:XValidation:rule="!has(self.caBundle) || (isURL(self.url) && url(self.url).getScheme() == 'https')",message="caBundle verifies an https:// url: make the url https:// or remove caBundle"
type HTTPHook struct {
	// URL is an http or https URL the controller can reach. Its query and
	// user information are left out wherever the controller writes the
	// URL (events, status, logs), but the set's readers see them.
	//
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && (url(self).getScheme() == 'http' || url(self).getScheme() == 'https') && url(self).getHost() != ''",message="url must be an absolute http:// or https:// URL with a host"
	URL string `json:"url"`
	// CABundle is a PEM bundle of the certificate authorities that an
	// https URL's certificate must chain to, in place of the system's
	// (base64, as a Secret's data).
	//
	// +kubebuilder:validation:MaxLength=65536
	// +optional
	CABundle []byte `json:"caBundle,omitempty"`
}

// ServiceHook is a Service of the set's namespace (there is no namespace
// field: a set calls only its own namespace's Services this way).
type ServiceHook struct {
	// Name is the Service's name.
	//
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="name must be a Service name: at most 63 lowercase letters, digits and '-', starting with a letter and ending with a letter or digit"
	Name string `json:"name"`
	// Port is one of the Service's ports (spec.ports[].port). Defaults to
	// 443 with caBundle and 80 without.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	Port int32 `json:"port,omitempty"`
	// Path is the request's path. Defaults to "/".
	//
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/') && !self.contains('?') && !self.contains('#')",message="path must start with / and hold no ? or #"
	// +optional
	Path string `json:"path,omitempty"`
	// CABundle, when set, makes the call https, verified against this PEM
	// bundle for the name <name>.<namespace>.svc (as an admission
	// webhook's); without it the call is plain http.
	//
	// +kubebuilder:validation:MaxLength=65536
	// +optional
	CABundle []byte `json:"caBundle,omitempty"`
}

// HookFailurePolicy is what a failed or timed-out hook does.
//
// +kubebuilder:validation:Enum=Halt;Proceed
type HookFailurePolicy string

// Hook failure policies.
const (
	HookHalt    HookFailurePolicy = "Halt"
	HookProceed HookFailurePolicy = "Proceed"
)

// Hook labels: the controller labels a pod with one of them, value
// HookPending, when it starts the hook, and the pod's annotation of the
// same key holds a HookRecord. A handshake's actor relabels the pod
// HookDone or HookFailed; an http hook's success is labelled HookDone by
// the controller.
const (
	PreUpdateHookLabel = "apps.ordinal.dev/pre-update"
	PreDeleteHookLabel = "apps.ordinal.dev/pre-delete"
	ReloadHookLabel    = "apps.ordinal.dev/reload"
)

// Hook label values.
const (
	HookPending = "Pending"
	HookDone    = "Done"
	HookFailed  = "Failed"
)

// HookRecord is what a pod's hook annotation holds, as JSON.
//
// +kubebuilder:object:generate=false
type HookRecord struct {
	// Since is when the hook started.
	Since time.Time `json:"since"`
	// Revision is the update revision the hook was started for.
	Revision string `json:"revision,omitempty"`
	// Attempts counts the calls of an http hook that have ended;
	// LastAttempt is when the last ended, and LastError why it failed.
	Attempts    int32     `json:"attempts,omitempty"`
	LastAttempt time.Time `json:"lastAttempt,omitzero"`
	LastError   string    `json:"lastError,omitempty"`
	// Role is the exclusive role a switchover was started to move.
	Role string `json:"role,omitempty"`
}

// HookRequest is the JSON body an http hook is POSTed.
//
// +kubebuilder:object:generate=false
type HookRequest struct {
	// Hook is "preUpdate", "preDelete", "switchover", "postCreate",
	// "postUpdate" or "reload".
	Hook        string `json:"hook"`
	Namespace   string `json:"namespace"`
	StatefulSet string `json:"statefulSet"`
	Pod         string `json:"pod"`
	PodUID      string `json:"podUID"`
	Ordinal     int32  `json:"ordinal"`
	// Revision is the revision the pod runs; UpdateRevision the one the
	// set is updating to.
	Revision       string `json:"revision"`
	UpdateRevision string `json:"updateRevision"`
	// Attempt counts from 1.
	Attempt int32 `json:"attempt"`
	// Role is the exclusive role a switchover asks to move away from the
	// pod; empty for the other hooks.
	Role string `json:"role,omitempty"`
	// Config is, for a reload hook, each of the pod's live ConfigMaps and
	// the copy whose data it now holds, with each key's hash (the first
	// 16 hex digits of the SHA-256 of its value): a receiver that hashes
	// its files alike can tell whether the kubelet has refreshed them yet,
	// and answer anything but 2xx until it has (the call is made again).
	Config []HookConfig `json:"config,omitempty"`
}

// HookConfig is one live ConfigMap a reload hook's request names.
//
// +kubebuilder:object:generate=false
type HookConfig struct {
	// ConfigMap is the object the template reads; Live the pod's own
	// ConfigMap its volumes mount; Copy the immutable copy whose data
	// Live holds.
	ConfigMap string            `json:"configMap"`
	Live      string            `json:"live"`
	Copy      string            `json:"copy"`
	Keys      map[string]string `json:"keys,omitempty"`
}

// HookTokenAudience is the audience of the ServiceAccount token an http or
// service hook call carries (as "Authorization: Bearer <token>") when the
// controller is configured with one. The token has a second audience,
// HookTokenAudience + "/" + the set's namespace, so that a receiver can
// accept only calls made for its own namespace's sets: a TokenReview with
// that audience fails for a token issued for another namespace.
const HookTokenAudience = "hooks.ordinal.dev"
