package planner

import "k8s.io/apimachinery/pkg/types"

// EvictionRequest is an eviction of one of the set's pods whose active
// responder is the set's controller (Observed.EvictionRequests).
type EvictionRequest struct {
	// Pod and UID are the request's target: a pod of that name with
	// another UID is another pod, which the request does not ask for.
	Pod string
	UID types.UID
	// Requesters are who asked (spec.requester of the requests that
	// still ask), for the plan's words.
	Requesters []string
}

// ResponseOutcome is where the set stands on an eviction request.
type ResponseOutcome string

// EvictionResponse is the set's answer to one EvictionRequest, which the
// controller writes to the Eviction's responder status.
type EvictionResponse struct {
	Pod     string
	UID     types.UID
	Outcome ResponseOutcome
	// Message says it in words, for the responder status's message.
	Message string
}
