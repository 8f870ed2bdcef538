// Package migrate moves a StatefulSet between apps/v1 and the extended kind
// (apps.ordinal.dev/v1alpha1) without restarting a pod: the old set is
// deleted with propagationPolicy Orphan, the garbage collector releases its
// pods and revisions, a set of the other kind with the same spec is
// created, its rollout state (status.currentRevision, collisionCount) is
// carried over through the status subresource, and the controller of the
// new kind adopts the orphans. Both kinds give the same revision names for
// the same template, so the adopted pods are already up to date. The steps
// only use the API, so they are safe with any controller managing either
// kind.
package migrate
