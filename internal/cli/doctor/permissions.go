package doctor

// Permission is one rule of the controller's RBAC: verbs on a resource of
// an API group. Resource may name a subresource, "statefulsets/status".
type Permission struct {
	Group    string
	Resource string
	Verbs    []string
	// ClusterOnly is a call only a controller of every namespace makes.
	ClusterOnly bool
}

// ControllerPermissions are the calls Ordinal's controller makes on the
// StatefulSets it manages and their pods, claims, revisions and events:
// the rules of config/rbac.yaml's ClusterRole (and of the chart's
// ClusterRole or Role), which a test keeps equal.
var ControllerPermissions = []Permission{
	{Group: "apps", Resource: "statefulsets", Verbs: []string{"get", "list", "watch"}},
	{Group: "apps", Resource: "statefulsets/status", Verbs: []string{"update"}},
	{Group: "apps", Resource: "statefulsets/finalizers", Verbs: []string{"update"}},
	{Group: "apps.ordinal.dev", Resource: "statefulsets", Verbs: []string{"get", "list", "watch", "update", "patch"}},
	{Group: "apps.ordinal.dev", Resource: "statefulsets/status", Verbs: []string{"update", "patch"}},
	{Group: "apps.ordinal.dev", Resource: "statefulsets/finalizers", Verbs: []string{"update"}},
	{Group: "apps", Resource: "controllerrevisions", Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
	{Group: "", Resource: "pods", Verbs: []string{"get", "list", "watch", "create", "delete", "patch"}},
	{Group: "", Resource: "pods/finalizers", Verbs: []string{"update"}},
	{Group: "", Resource: "persistentvolumeclaims", Verbs: []string{"get", "list", "watch", "create", "patch"}},
	{Group: "", Resource: "events", Verbs: []string{"create", "patch", "update"}},
	{Group: "events.k8s.io", Resource: "events", Verbs: []string{"create", "patch", "update"}},
	{Group: "", Resource: "services", Verbs: []string{"get"}},
	{Group: "discovery.k8s.io", Resource: "endpointslices", Verbs: []string{"list"}},
	{Group: "storage.k8s.io", Resource: "storageclasses", Verbs: []string{"list", "watch"}, ClusterOnly: true},
}

// LeasePermission is what leader election needs in the Lease's namespace.
var LeasePermission = Permission{Group: "coordination.k8s.io", Resource: "leases", Verbs: []string{"get", "create", "update"}}
