package invariant

// Rule names one promise. The exact definition of each is here; the
// checks live in pods.go, extended_pods.go, priority.go, rollback.go,
// claims.go, sets.go, storage.go, inplace.go, budgets.go, scaleup.go,
// rolloutgroup.go, final.go and final_extended.go.
//
// Vocabulary. A pod of set S is a pod named S-<n> (n a decimal ordinal)
// whose controller reference, if any, is S's UID. "Range" is
// [start, start+replicas) of S's spec. A pod is *healthy* at time x when it
// exists, is not terminating, is Running with Ready=True, does not have
// the controller's in-place readiness gate condition False and, when
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
//
// The extended kind (apps.ordinal.dev StatefulSet) is judged by every rule
// above through its apps/v1 fields, with two readings: the partition is
// updateStrategy.rollingUpdate.partition, and a *paused* set
// (rollingUpdate.paused) behaves as if every ordinal were below the
// partition. Its own rules follow the shared ones. A pod is *Available
// throughout* the window when it was healthy at every instant of it; an
// ordinal is *unavailable throughout* the window when its pod was healthy
// at no instant of it (a missing pod is unavailable). The *update revision*
// of a deletion is the status.updateRevision every set version of the
// window agrees on, each with observedGeneration == generation; when they
// do not agree or a version is not observed yet, there is none. Self-healing
// *applies* to a version under RollingUpdate that is not paused and whose
// rollingUpdate.selfHealing is not Disabled. A *user template change* is a
// set version whose spec.template differs from the previous version's and
// that the caller recorded with Checker.UserWrite (or that was relisted, so
// whose author is unknown); any other template change is the controller's.
// An *automatic rollback* is a status.rollback record (from, to, time) seen
// for the first time.
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
	// Under Recreate (either kind, every version of the window) a pod at
	// a revision other than some version's update revision is exempt: the
	// strategy deletes every old pod at once.
	RuleOrderedScaleDown Rule = "ordered-scale-down"
	// RuleOrderedUpdate: under OrderedReady with RollingUpdate and
	// maxUnavailable unset or 1 in every spec within the window, a
	// controller deletion of an in-range pod i happens only if, for some
	// spec within the window, every ordinal k > i in that spec's range was
	// healthy within the window (updates go from the highest ordinal down,
	// one at a time; the controller may have decided on a spec its cache
	// had not replaced yet).
	// Self-healing (extended kind) is the exception: when some version of
	// the window heals and the pod was not Running and Ready at some
	// instant of it, the deletion may be self-healing's, and then every
	// in-range ordinal j < i was healthy within the window instead (the
	// healed pod is the first unhealthy one).
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
	// RuleClaimShrunk: the storage capacity a claim object reports
	// (status.capacity) never decreases. Storage only grows, whatever the
	// template says.
	RuleClaimShrunk Rule = "claim-shrunk"
	// RuleClaimBudget (extended kind, InPlace claim updates and
	// RollingUpdate in every version of the window): a resize started on a
	// claim (its storage request rising above its capacity) of an in-range
	// ordinal whose pod was Available throughout the window is within
	// maxUnavailable: some version of the window has fewer than its
	// maxUnavailable other ordinals of its range that were unavailable
	// throughout the window or had a claim resizing throughout it. A pod
	// whose claims resize stays Ready but takes a slot.
	RuleClaimBudget Rule = "claim-budget"
	// RuleInPlaceKeeps: a pod whose containers' images or resources change
	// (one UID, consecutive versions) keeps its node and the claims it
	// mounts.
	RuleInPlaceKeeps Rule = "in-place-keeps"
	// RuleInPlaceGate: a pod with the controller's readiness gate
	// (apps.ordinal.dev/in-place-ready) has its containers' images or
	// resources changed only when its previous version had the gate's
	// condition False and was not Ready: it left its Services' endpoints
	// first.
	RuleInPlaceGate Rule = "in-place-gate"
	// RuleInPlaceBudget (extended kind, RollingUpdate in every version of
	// the window, the ordinal in range): the gate condition of a pod that
	// was Available throughout the window turns False only within
	// maxUnavailable: some version of the window has fewer than its
	// maxUnavailable other ordinals of its range unavailable throughout the
	// window. A pod whose gate is False is never healthy (see healthy
	// above), so every budget rule counts it as unavailable.
	RuleInPlaceBudget Rule = "in-place-budget"
	// RuleHookHalt (extended kind, a lifecycle hook with failurePolicy
	// Halt in every version of the window): a pod the controller deletes
	// (started, not finished, not deleted by someone else) was labelled
	// Done for preDelete at some point, and, when it is deleted in range at
	// an old revision (not labelled for deletion) or taken out of service
	// for an update in place, Done for preUpdate: a hook that never answers
	// never lets its pod go.
	RuleHookHalt Rule = "hook-halt"
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
	// with currentRevision / updateRevision; both revisions exist. For the
	// extended kind also: updatedReadyReplicas / updatedAvailableReplicas =
	// Ready / Available non-terminating pods at updateRevision;
	// labelSelector = spec.selector as a string; condition Available is
	// True exactly when availableReplicas >= spec.replicas -
	// maxUnavailable; and when every pod runs the update revision, Ready
	// and Available, with currentRevision == updateRevision,
	// lastCompletedRevision == updateRevision and condition Progressing is
	// True.
	RuleStatus Rule = "status"
	// RuleReservedOrdinal: a pod of extended set S is created with ordinal
	// n only if some spec of S held within the window does not reserve n
	// (spec.reserveOrdinals): once a reservation is observed, its ordinal
	// never gets a new pod.
	RuleReservedOrdinal Rule = "reserved-ordinal"
	// RulePausedDelete (extended kind): while the set is paused (every
	// version of the window), the controller never deletes an in-range pod
	// that is not Failed/Succeeded; scale-down is judged as usual.
	RulePausedDelete Rule = "paused-delete"
	// RuleUpdatedDelete (extended kind): the controller never deletes an
	// in-range pod that is not Failed/Succeeded and runs the update
	// revision. Self-healing replaces old-revision pods only.
	RuleUpdatedDelete Rule = "updated-delete"
	// RuleAvailableDelete (extended kind, RollingUpdate in every version of
	// the window): a controller deletion of an in-range pod that was
	// Available throughout the window is a rolling-update delete within
	// maxUnavailable: some version of the window has fewer than its
	// maxUnavailable (scaled to replicas, rounded down, at least 1) other
	// ordinals of its range unavailable throughout the window. Self-healing
	// never takes an Available pod; a pod Ready but not yet Available
	// (minReadySeconds) is unavailable, and the rolling update replaces it
	// at no cost to the budget.
	RuleAvailableDelete Rule = "available-delete"
	// RulePriorityOrder (extended kind, RollingUpdate with
	// rollingUpdate.priority rules that can be read in every version of
	// the window): a controller deletion of an in-range pod P that does
	// not run the update revision, where every state of P's object in the
	// window was surely Available (Ready for minReadySeconds plus
	// ReadySlack, so neither replaced for free nor self-healed) and not
	// labelled for deletion, happens only if no pod Q ranked before P all
	// along: Q's ordinal is in range and at or above the partition of
	// every version; a pod object of Q existed at every instant of the
	// window, not terminating, surely Available and old: at P's revision
	// (which the rolling update deleted P for), or at any other than the
	// update revision when the window has one; and under every version's
	// rules and every label state of P and Q in the window, Q weighs more
	// than P, or both weigh one same weight and Q's ordinal is higher. The
	// rolling update hands its budget out in that order, so it deletes
	// such a Q first, and Q is terminating before P's deletion. Nothing is
	// claimed while a pod waits unavailable: replacing it costs nothing,
	// whatever its weight.
	RulePriorityOrder Rule = "priority-order"
	// RuleRecreate (either kind, Recreate in every version of the
	// window): a pod is created only while no other pod of the set at
	// another revision exists (terminating or not): no pod of the new
	// revision runs beside one of an old revision.
	RuleRecreate Rule = "recreate"
	// RuleRollbackOnce (extended kind, writes recorded with UserWrite): the
	// controller changes spec.template at most once between two user
	// template changes: one rollback per failure, and a rollback that fails
	// too pauses.
	RuleRollbackOnce Rule = "rollback-once"
	// RuleRollbackLoop (extended kind, writes recorded with UserWrite): with
	// no user template change between an earlier automatic rollback E and
	// a later one R, R.to != E.from (never back to a revision a rollback
	// left) and R.from != E.to (never away from a revision a rollback
	// restored).
	RuleRollbackLoop Rule = "rollback-loop"
	// RuleDisruptionBudget (extended kind, respectDisruptionBudgets in
	// every version of the window): a controller deletion of a pod that
	// was Ready, in the range of every version or at an ordinal it
	// reserves, happens only while, for every PodDisruptionBudget
	// of the namespace whose selector matches the pod and whose
	// minAvailable is a number, at least minAvailable other pods it
	// matches are Ready and not terminating at that commit. A pod that
	// turns unready on its own just before (an involuntary disruption the
	// budget's status has not counted yet) can make it fire; the
	// histories it judges have budgets only where a test made one.
	RuleDisruptionBudget Rule = "disruption-budget"
	// RuleScaleUpBudget (extended kind, Parallel with
	// scaleStrategy.maxUnavailable N in every version of the window): a
	// pod is created only if some version of the window has fewer than its
	// N other ordinals of its range whose pod exists at that commit and
	// was healthy at no instant of the window. A broken template never
	// has more than N pods failing at once.
	RuleScaleUpBudget Rule = "scale-up-budget"
	// RuleRolloutGroup (extended kind, one rollingUpdate.rolloutGroup G
	// in every version of the window): a controller deletion of an
	// in-range, unfinished pod of S not labelled for deletion (a rolling
	// update's or self-healing's delete) happens only while no other
	// extended set of S's namespace whose current version names G has,
	// at that commit, a terminating pod or pods at two revisions: two
	// sets of a group never update at once.
	RuleRolloutGroup Rule = "rollout-group"
	// RuleVolumeData (final state): every claim that received a marker
	// file and still exists as the same object is bound to the same volume
	// and the marker is still in the volume's directory.
	RuleVolumeData Rule = "volume-data"
)
