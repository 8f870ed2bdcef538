package planner

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// PriorityRule is one rule of the extended kind's
// rollingUpdate.priority: Weight is added to the weight of every pod whose
// labels Selector matches.
type PriorityRule struct {
	Weight   int32
	Selector *metav1.LabelSelector
}

// OrderedPod is an old-revision pod the rolling update is to replace,
// with its weight.
type OrderedPod struct {
	Pod     string
	Ordinal int32
	Weight  int64
	// Now is true when this plan deletes the pod.
	Now bool
	// Role is the pod's role under spec.roles, "" without one.
	Role string
}
