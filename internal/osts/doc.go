// Package osts adapts the extended StatefulSet (apps.ordinal.dev/v1alpha1)
// to the one planner both kinds share: View is the apps/v1 set the planner
// reads, Extended the extra inputs, and Status turns a plan back into the
// extended kind's status.
package osts
