package doctor

// Permission is one rule of the controller's RBAC: verbs on a resource of
// an API group. Resource may name a subresource, "statefulsets/status".
type Permission struct {
	Group    string
	Resource string
	Verbs    []string
	// ClusterOnly is a call only a controller of every namespace makes.
	ClusterOnly bool
	// AppsV1Only is a call only a controller of apps/v1 StatefulSets
	// makes: not one with --manage-apps-v1=false.
	AppsV1Only bool
	// Named is a call on one object the controller names, the Lease: the
	// rule grants it by resourceNames, and the review asks about that name.
	Named bool
}

// ControllerPermissions are the calls Ordinal's controller makes on the
// StatefulSets it manages and their pods, claims, revisions and events:
// the rules of config/rbac.yaml's ClusterRole (and of the chart's
// ClusterRole or Role), which a test keeps equal.
var ControllerPermissions = []Permission{
	{Group: "apps", Resource: "statefulsets", Verbs: []string{"get", "list", "watch"}, AppsV1Only: true},
	{Group: "apps", Resource: "statefulsets/status", Verbs: []string{"update"}, AppsV1Only: true},
	{Group: "apps", Resource: "statefulsets/finalizers", Verbs: []string{"update"}, AppsV1Only: true},
	{Group: "apps.ordinal.dev", Resource: "statefulsets", Verbs: []string{"get", "list", "watch"}},
	{Group: "apps.ordinal.dev", Resource: "statefulsets/status", Verbs: []string{"update", "patch"}},
	{Group: "apps.ordinal.dev", Resource: "statefulsets/finalizers", Verbs: []string{"update"}},
	{Group: "apps", Resource: "controllerrevisions", Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
	{Group: "", Resource: "pods", Verbs: []string{"get", "list", "watch", "create", "delete", "patch"}},
	{Group: "", Resource: "pods/finalizers", Verbs: []string{"update"}},
	{Group: "", Resource: "pods/status", Verbs: []string{"patch"}},
	{Group: "", Resource: "pods/resize", Verbs: []string{"patch"}},
	{Group: "", Resource: "pods/eviction", Verbs: []string{"create"}},
	{Group: "policy", Resource: "poddisruptionbudgets", Verbs: []string{"get", "list", "watch", "create", "update", "delete"}},
	{Group: "lifecycle.k8s.io", Resource: "evictions", Verbs: []string{"get", "list", "watch"}},
	{Group: "lifecycle.k8s.io", Resource: "evictions/status", Verbs: []string{"update"}},
	{Group: "", Resource: "persistentvolumeclaims", Verbs: []string{"get", "list", "watch", "create", "patch"}},
	{Group: "", Resource: "configmaps", Verbs: []string{"get", "list", "watch", "create", "patch"}},
	{Group: "", Resource: "events", Verbs: []string{"create", "patch", "update"}},
	{Group: "events.k8s.io", Resource: "events", Verbs: []string{"create", "patch", "update"}},
	{Group: "", Resource: "services", Verbs: []string{"get"}},
	{Group: "discovery.k8s.io", Resource: "endpointslices", Verbs: []string{"list"}},
	{Group: "storage.k8s.io", Resource: "storageclasses", Verbs: []string{"list", "watch"}, ClusterOnly: true},
	{Group: "", Resource: "nodes", Verbs: []string{"get", "list", "watch"}, ClusterOnly: true},
	{Group: "", Resource: "persistentvolumes", Verbs: []string{"get", "list", "watch"}, ClusterOnly: true},
}

// ClaimDeletionPermissions are what the controller needs in a namespace
// whose extended sets use nodeFailurePolicy.volumes: Recreate: the rules of
// config/rbac.yaml's ClusterRole ordinal-claim-deleter, which a namespace
// opts in to with a RoleBinding. They are not among ControllerPermissions:
// without them the policy reports itself not applied (condition
// ClaimRecreation) and deletes nothing.
var ClaimDeletionPermissions = []Permission{
	{Group: "", Resource: "persistentvolumeclaims", Verbs: []string{"delete"}},
}

// ConfigSecretPermissions are what the controller needs in a namespace
// whose extended sets name Secrets in spec.configRevisions.secrets: the
// rules of config/rbac.yaml's ClusterRole ordinal-config-secrets, which a
// namespace opts in to with a RoleBinding. Not among
// ControllerPermissions: without them such a set holds (ConfigForbidden)
// and reads no Secret.
var ConfigSecretPermissions = []Permission{
	{Group: "", Resource: "secrets", Verbs: []string{"get", "create", "patch"}},
}

// LeasePermissions are what leader election needs in the Lease's
// namespace: creating a Lease (which RBAC cannot limit to a name, for the
// authorizer sees no name on a create), reading and renewing its own.
var LeasePermissions = []Permission{
	{Group: "coordination.k8s.io", Resource: "leases", Verbs: []string{"create"}},
	{Group: "coordination.k8s.io", Resource: "leases", Verbs: []string{"get", "update"}, Named: true},
}

// MetricsAuthPermissions are what the secure metrics port (the controller's
// default, --metrics-secure) needs to ask the API server about a scraper:
// who its token belongs to, and whether that user may get /metrics. Both
// are cluster-scoped, whatever namespace the controller manages.
var MetricsAuthPermissions = []Permission{
	{Group: "authentication.k8s.io", Resource: "tokenreviews", Verbs: []string{"create"}},
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews", Verbs: []string{"create"}},
}
