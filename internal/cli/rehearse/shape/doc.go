// Package shape is a rehearsal's copy of a running set: it reads the set
// and what shapes its rollout (pods, claims and their classes, the
// PodDisruptionBudgets and Services that select it, the nodes' zones,
// counts and free room, the events of its last rollout) with get and
// list requests only, through a client that refuses anything else; it
// applies the proposed change to the set; and it makes the objects the
// copy is built from.
package shape
