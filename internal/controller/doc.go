// Package controller is Ordinal's StatefulSet controller: its
// configuration (Config), informers, a work queue, the per-set state, and
// the pod control that applies the planner's actions through the API. The
// decisions themselves live in package planner, which is pure; this
// package only observes, asks the planner, and writes. Its calls to pods
// (http lifecycle hooks, the role probe) go through package podcall.
//
// It imports client-go, apimachinery and api only — never k8s.io/kubernetes —
// so the in-cluster controller stays small.
package controller
