// Package testgen builds the API objects the revision and planner tests
// need: a StatefulSet as the API server stores it after defaulting, pods in
// the states a kubelet reports, claims with the owner references the
// retention policy produces, and ControllerRevisions.
//
// Builders take functional options so that a test names only what matters
// to it: testgen.StatefulSet("web", testgen.Replicas(3), testgen.Parallel()).
// Pods are built independently of the planner's own NewPod, so a bug there
// cannot hide itself in the fixtures.
package testgen
