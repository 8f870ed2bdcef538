package invariant

// Rule names one promise. The exact definition of each is here; the
// checks live in pods.go, claims.go, sets.go and final.go.
//
// Vocabulary. A pod of set S is a pod named S-<n> (n a decimal ordinal)
// whose controller reference, if any, is S's UID. "Range" is
// [start, start+replicas) of S's spec. A pod is *healthy* at time x when it
// exists, is not terminating, is Running with Ready=True and, when
// minReadySeconds m > 0, Ready since at least x-m (less Options.ReadySlack).
// "Within the window" of an event at time t means at some instant in
// [t-Window, t], judged on the states observed in commit (RV) order; a
// predicate about a pod or a spec "held within the window" if the state
// current at t-Window, or any later state up to t, satisfies it. A pod
// *creation* is the first observed version of a new pod UID; a pod
// *deletion* is the first version of a UID that is terminating, or its
// DELETED event if none was; a controller deletion is a deletion of a pod
// that was not Failed or Succeeded and not recorded as an ExternalDelete.
// Events synthesised from a relist are never judged as creations or
// deletions, because their moment is unknown.
type Rule string

// The rules.
const (
	// RuleUniqueIdentity: no pod is created for a name while an earlier pod
	// object of that name has not been observed DELETED (in RV order).
	RuleUniqueIdentity Rule = "unique-identity"
	// RuleOrdinalRange: a pod of S is created only with an ordinal inside
	// the range of some spec of S held within the window (condemned pods
	// are ones created earlier, never new ones).
	RuleOrdinalRange Rule = "ordinal-range"
	// RuleOrderedCreate: under OrderedReady, a pod with ordinal i is created
	// only if every ordinal j in [start, i) was healthy within the window.
	RuleOrderedCreate Rule = "ordered-create"
	// RuleOrderedScaleDown: under OrderedReady, a controller deletion of a
	// condemned pod (ordinal outside the range of some spec within the
	// window) happens only if every higher-ordinal pod of S ever observed
	// was absent (no object) within the window.
	RuleOrderedScaleDown Rule = "ordered-scale-down"
	// RuleOrderedUpdate: under OrderedReady with RollingUpdate and
	// maxUnavailable unset or 1 in every spec within the window, a
	// controller deletion of an in-range pod i happens only if every
	// in-range ordinal k > i was healthy within the window (updates go
	// from the highest ordinal down, one at a time).
	RuleOrderedUpdate Rule = "ordered-update"
	// RuleOnDeleteDelete: under OnDelete (every spec in the window), the
	// controller never deletes an in-range pod that is not Failed/Succeeded.
	RuleOnDeleteDelete Rule = "ondelete-delete"
	// RulePartitionDelete: under RollingUpdate, the controller never
	// deletes an in-range, unfinished pod whose ordinal is below the
	// partition of every spec within the window.
	RulePartitionDelete Rule = "partition-delete"
	// RulePartitionCreate: under RollingUpdate, a pod created with an
	// ordinal below the partition of every spec within the window carries
	// (label controller-revision-hash) a status.currentRevision of S held
	// within the window. Skipped while S has no currentRevision yet.
	RulePartitionCreate Rule = "partition-create"
	// RuleClaimDeleted: a claim <template>-S-<n> is deleted (terminating or
	// DELETED) only if it carried a Pod owner reference and S's
	// whenScaled policy was Delete, or it carried S's owner reference, S's
	// whenDeleted was Delete and S was deleted or terminating.
	RuleClaimDeleted Rule = "claim-deleted"
	// RuleClaimOwner: a claim gains a Pod owner reference only while its
	// ordinal was outside the range of some spec within the window (that
	// reference lets the garbage collector delete it).
	RuleClaimOwner Rule = "claim-owner"
	// RuleClaimVolume: a claim object, once bound (spec.volumeName set),
	// never changes volume.
	RuleClaimVolume Rule = "claim-volume"
	// RuleCollisionCount: status.collisionCount of one set object never
	// decreases.
	RuleCollisionCount Rule = "collision-count"
	// RuleObservedGeneration: status.observedGeneration of one set object
	// never decreases.
	RuleObservedGeneration Rule = "observed-generation"
	// RuleLiveRevision: a ControllerRevision of S is not deleted (while S
	// lives) when, at that commit, it is S's status.currentRevision or
	// updateRevision, or a pod of S that still exists carries it.
	RuleLiveRevision Rule = "live-revision"
	// RuleStatus (final state, after convergence): S's status agrees with
	// its pods: observedGeneration == generation; replicas = pods of S;
	// readyReplicas = Running and Ready; availableReplicas = available;
	// currentReplicas / updatedReplicas = non-terminating pods labelled
	// with currentRevision / updateRevision; both revisions exist.
	RuleStatus Rule = "status"
	// RuleReservedOrdinal: a pod of extended set S is created with ordinal
	// n only if some spec of S held within the window does not reserve n
	// (spec.reserveOrdinals): once a reservation is observed, its ordinal
	// never gets a new pod.
	RuleReservedOrdinal Rule = "reserved-ordinal"
	// RuleVolumeData (final state): every claim that received a marker
	// file and still exists as the same object is bound to the same volume
	// and the marker is still in the volume's directory.
	RuleVolumeData Rule = "volume-data"
)
