package planner

import "time"

// RoleSpec is the extended kind's spec.roles: the pod label that names
// each pod's role, and the roles.
type RoleSpec struct {
	LabelKey string
	Roles    []Role
	// Probe is spec.roles.roleProbe, nil without one: the controller
	// writes the label from each pod's answer. The planner never reads
	// it (a label is a label, whoever wrote it); plans explain it.
	Probe *RoleProbe
}

// RoleProbe is how the controller asks each pod for its role: GET
// :Port Path every Period, each call bounded by Timeout, the label
// removed after FailureThreshold failures in a row.
type RoleProbe struct {
	Port             int32
	Path             string
	Period, Timeout  time.Duration
	FailureThreshold int32
}

// Role is one role value. Order is resolved: an exclusive role without an
// updateOrder has LastRoleOrder.
type Role struct {
	Name              string
	Quorum, Exclusive bool
	Order             int32
}
