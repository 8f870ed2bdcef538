package chaos

// An all-features run (-all-features-runs, the last of the runs) turns
// every extended feature on in every extended set it creates, so that
// the features meet one another under the faults, not only one or two at
// a time: a rolling update, in place where it can, self-healing, every
// hook, roles with a quorum and a switchover (elected or probed), the
// primary last, zone by zone, a disruption budget of its own, local
// volumes, its configuration in its revisions (restarted or reloaded)
// and a node-failure policy from creation on. The random draws are the same as in any run of the
// seed, so a seed's other runs keep their steps; what a run with all
// features adds on top (the node-failure policy) draws from the node
// shapes' stream. The operations stay random: overrides, offline
// members, claims grown in place, drains, node failures.

import (
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// allFeatures gives set, under an all-features run, what randomExtended
// does not: a node-failure policy that replaces pods of a node that stops
// answering, and gives up local volumes (or keeps them) once the node is
// lost. A set with an exclusive role accepts, as the API asks, that a
// replaced holder may still run on its lost node.
func (r *run) allFeatures(set *v1alpha1.StatefulSet) {
	if !r.all {
		return
	}
	p := r.randomPolicy(true)
	p.ReplaceAfterSeconds = ptr.To[int32](3)
	if set.Spec.Roles != nil {
		p.ReplaceExclusiveRoleHolders = true
	}
	set.Spec.NodeFailurePolicy = p
}

// allWord marks an all-features run in the summary.
func allWord(all bool) string {
	if all {
		return " (all features)"
	}
	return ""
}
