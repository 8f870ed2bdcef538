package invariant

// Rule names one promise. The exact definition of each is here; the
// checks live in pods.go, extended_pods.go, priority.go, roles.go, topology.go,
// partitioncount.go, rollback.go, holds.go, roleprobe.go, claims.go, sets.go, storage.go,
// inplace.go, budgets.go, scaleup.go, rolloutgroup.go, configcopies.go,
// final.go and final_extended.go.
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
// that was not Failed or Succeeded, not recorded as an ExternalDelete, and
// not marked DisruptionTarget by the taint-eviction controller or the pod
// garbage collector, which mark a pod so before they delete it (the first
// finds the pod by name, so it can take one recreated under the name of
// the pod it meant).
// Events synthesised from a relist are never judged as creations or
// deletions, because their moment is unknown.
//
// The extended kind (apps.ordinal.dev StatefulSet) is judged by every rule
// above through its apps/v1 fields, with two readings: the partition is
// updateStrategy.rollingUpdate.partition (0 under partitionMode Count,
// whose count RuleCountPartition judges), and a *paused* set
// (rollingUpdate.paused, or *held* with action Paused) behaves as if every
// ordinal were below the partition. A version is *held* when its
// status.hold is set, its status.observedGeneration equals its
// generation, its onFailure is Pause or Rollback, and its annotation
// apps.ordinal.dev/release-hold does not name the hold's id; its update
// revision is the hold's revision (the one it runs), not
// status.updateRevision. Its own rules follow the shared ones. A pod is *Available
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
	// a revision other than an update revision of the window is exempt:
	// the strategy deletes every old pod at once, condemned ones included,
	// before any scale-down (upstream 1.37's does too). An update revision
	// of the window is status.updateRevision of some version of the window
	// or, since a controller makes the update revision of a spec new to it
	// and deletes before it writes the status that names it, of a version
	// observed within the window after the deletion whose
	// status.observedGeneration is the generation of a version of the
	// window before it.
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
	// Node-failure clause (extended kind): a claim may also be deleted
	// when some version of S has nodeFailurePolicy.volumes Recreate and,
	// with Options.Nodes, the claim's volume is pinned (required node
	// affinity on one kubernetes.io/hostname) to a host that was lost at
	// some instant of the window and, with Options.Quarantine,
	// throughout [t-Quarantine, t-Window] (which must lie after the
	// watch began). A host is a label value, never a node name: it is
	// lost when no node carries the label, or every node that does is
	// NotReady and carries the node.kubernetes.io/out-of-service taint.
	RuleClaimDeleted Rule = "claim-deleted"
	// RuleClaimOwner: a claim gains a Pod owner reference only while its
	// ordinal was outside the range of some spec within the window (that
	// reference lets the garbage collector delete it).
	RuleClaimOwner Rule = "claim-owner"
	// A *force deletion* of a pod of S is a version, not relisted, of a
	// pod not recorded as an ExternalDelete that is DELETED, or is its
	// first terminating version with deletionGracePeriodSeconds 0, while
	// the version before was Running on a node, not terminating, with
	// terminationGracePeriodSeconds above 0 (unset is 30): an ordinary
	// delete of that version would have given it its grace period. (A pod
	// not yet Running is left out: a delete the API server judged while
	// the pod was unscheduled, so with grace 0, can remove it just after
	// the scheduler bound it.) (The pod garbage collector marks a pod Failed before it
	// deletes it, so its deletions are not force deletions here. A force
	// delete of a pod already terminating is indistinguishable, from the
	// outside, from its node confirming the deletion, and is not judged.)
	// RuleForceDeletePolicy: a force deletion of a pod of S happens only
	// if some version of S is an extended set with
	// nodeFailurePolicy.replaceAfterSeconds.
	RuleForceDeletePolicy Rule = "force-delete-policy"
	// RuleForceDeleteLive (Options.Nodes): a force deletion of a pod of S
	// happens only if its node was absent, or its Ready condition
	// Unknown, at some instant of the window: a pod on a node whose
	// kubelet answers (Ready True or False), or that has no Ready
	// condition, is never force-deleted.
	RuleForceDeleteLive Rule = "force-delete-live"
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
	// RuleSwitchover (extended kind, lifecycle.switchover with
	// failurePolicy Halt in every version of the window): the controller
	// never deletes a started, unfinished pod, nor takes it out of service
	// for an update in place, when every state of its object in the window
	// held a role that is exclusive in every version; and when the pod's
	// state at that moment carries a switchover (label not Failed) for
	// role R, exclusive in every version, another pod of the set was Ready,
	// not terminating and labelled R at some instant of the window.
	RuleSwitchover Rule = "switchover"
	// RuleQuorumDelete (extended kind, RollingUpdate and a quorum role in
	// every version of the window): a controller deletion of an in-range
	// pod whose every state in the window was surely Available and
	// labelled with a role that is a quorum role in every version (an
	// Available member all along) leaves a majority Available: with size
	// the least, over the versions, of the version's ordinals less those
	// whose pod was labelled with a role that is not a quorum role at some
	// instant of the window, and available 1 plus the other ordinals (of
	// any version) whose pod was, at some instant of the window, Running,
	// Ready, not terminating and labelled with a quorum role of some
	// version, a size of at least 3 has available - 1 >= size/2 + 1.
	// Quorums of one or two members, which the controller disrupts one
	// member at a time, are not judged.
	RuleQuorumDelete Rule = "quorum-delete"
	// RuleQuorumFloor (extended kind, a quorum role in every version of
	// the window, and spec.disruptionBudget in every version or an
	// eviction request that went through the set: with evictions and
	// nodes watched, an Eviction of the pod made the controller its active
	// responder in the window, and no reason to decline held: no version
	// with nodeDrainPolicy Ignore or a paused rollout, the pod's node
	// Ready throughout, no claim of the pod on a volume pinned to one
	// host): an eviction of an in-range
	// pod, whoever asked for it (the pod carries condition
	// DisruptionTarget, reason EvictionByEvictionAPI, which the API
	// server sets before it deletes an evicted pod), leaves a majority of
	// the quorum Available, counted as RuleQuorumDelete counts it: a
	// member down for any cause (missing, not Ready, terminating, on a
	// lost node, deleted by the set or killed by someone) is down.
	// Together with RuleQuorumDelete for the controller's own deletions:
	// the members Available never drop below a majority by a disruption
	// the set could have refused.
	RuleQuorumFloor Rule = "quorum-floor"
	// RuleSwitchoverEvict (extended kind, lifecycle.switchover in every
	// version of the window, and spec.disruptionBudget or a request that
	// went through the set, as for RuleQuorumFloor): no pod is
	// evicted, by anyone, whose every state in the window held a role
	// exclusive in every version and carried a switchover under way
	// (label not Failed, and not past the timeout of a version whose
	// switchover has failurePolicy Proceed, from the hook record's start): until the role has moved the set's budget
	// allows no eviction. (RuleSwitchover holds the controller's own
	// disruptions of a holder.)
	RuleSwitchoverEvict Rule = "switchover-evict"
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
	// rollingUpdate.priority rules that can be read, and no spec.roles, in
	// every version of the window; roles order the update before the
	// rules, and a quorum or a switchover holds pods out of turn, which
	// RuleQuorumDelete and RuleSwitchover judge): a controller deletion of an in-range pod P that does
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
	// RuleDomainBudget (extended kind, RollingUpdate with
	// rollingUpdate.topology in every version of the window): a
	// controller deletion of an in-range pod Available throughout the
	// window, not labelled for deletion, on a node the checker has seen,
	// leaves its domain (the node's value of the topology key, "" without
	// the label) within maxUnavailablePerDomain: some version of the
	// window has fewer than its maxUnavailablePerDomain other ordinals of
	// its range whose pod was unavailable throughout the window and, at
	// every instant of it, on no node or on a node of that domain (a pod
	// not yet scheduled may land in any domain, and counts for each). A
	// deletion the rollout did not make (a pod labelled for deletion, on
	// a drained node, or asked for by an eviction request) is judged the
	// same way, counting only the pods on the domain's nodes: a move may
	// take any domain's pod, but only while its domain has room.
	RuleDomainBudget Rule = "domain-budget"
	// RuleDomainOrder (same deletions): domains go one after another (the
	// topology's order, then by name, no label last): for some version of
	// the window, no other ordinal of its range had, at every instant of
	// the window, one pod object on a node of an earlier domain that was
	// unhealthy throughout the window or, under an Ordinal partition and
	// at or above it, old throughout it: at the deleted pod's revision
	// (which the rolling update deleted it for), or at another than the
	// window's one update revision when it has one.
	RuleDomainOrder Rule = "domain-order"
	// RuleCountPartition (extended kind, rollingUpdate.partitionMode Count
	// in every version of the window, whose one update revision is
	// known): a controller deletion of an in-range pod at another revision,
	// Available throughout the window and not labelled for deletion,
	// happens only if some version of the window has fewer than its
	// ordinals (reserved ones left out) minus its partition other ordinals
	// whose pod was, at every instant of the window, missing, terminating
	// or at the update revision. The partition's pods of a Count set are
	// judged by this rule alone: the ordinal partition rules read its
	// partition as 0.
	RuleCountPartition Rule = "count-partition"
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
	// RuleNoSpecWrite (extended kind): the controller's field manager
	// (ordinal-controller) never writes an extended set but through its
	// status subresource: no version has a managedFields entry of that
	// manager on the main resource that differs from the previous
	// version's. The failure policy's decisions live in status.hold; the
	// spec is its owner's (a person, or a GitOps tool that re-applies it).
	RuleNoSpecWrite Rule = "no-spec-write"
	// RuleHoldRevision (extended kind): while every version of the window
	// is held with a failed revision F and a revision other than F, no pod
	// of the set is created at F nor changed in place to F: a rolled-back
	// set stays at the revision it runs until the spec changes or a person
	// releases the hold.
	RuleHoldRevision Rule = "hold-revision"
	// RuleOfflineClaims (extended kind): a claim of an ordinal that every
	// version of the set within the window lists in spec.offlineOrdinals is
	// never deleted nor given an owner reference to a pod (which would
	// hand it to the garbage collector with the pod), whatever whenScaled
	// says; deleting the set itself still follows whenDeleted.
	RuleOfflineClaims Rule = "offline-claims"
	// RuleRoleProbeWrite (extended kind): a write of the role probe's
	// field manager (ordinal-role-probe) to a pod of a set — its
	// managedFields entry differing from the previous version's — happens
	// only while some version of the set within the window has
	// spec.roles.roleProbe, and the manager owns no field of the pod but
	// the labelKey label of such a version and the
	// apps.ordinal.dev/role-probe annotation: without a probe the
	// controller never writes a role label.
	RuleRoleProbeWrite Rule = "role-probe-write"
	// RuleMemberJoin (extended kind, a postCreate or postUpdate hook and
	// maxUnavailable 1 in every version of the window): while a pod of the
	// set is labelled Pending for its postCreate or postUpdate hook
	// throughout the window, the controller does not delete another
	// in-range pod that was Available throughout it, nor take one out of
	// service (its readiness gate False), and under OrderedReady (every
	// version) it creates no pod at a higher ordinal: the next pod waits
	// until the member has joined. With a larger maxUnavailable, a joining
	// pod counts as unavailable in the budget rules above.
	RuleMemberJoin Rule = "member-join"
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
	// RuleConfigCopies: a pod of an extended set labelled with revision
	// R reads only R's data. At each observed version of the pod whose
	// revision R is observed: (a) every ConfigMap and Secret its volumes,
	// projected sources and environment name that some observed revision
	// of the set records as a copy (annotation apps.ordinal.dev/config-refs:
	// kind, object, copy) is the copy R records for that object; (b) when
	// its annotation apps.ordinal.dev/config-reload says it is settled at R
	// (revision R, not pending), every live ConfigMap its volumes mount
	// (labelled apps.ordinal.dev/config-live-of), as last committed before
	// that version, names in apps.ordinal.dev/config-copy the copy R
	// records for its object. A live ConfigMap written for a reload before
	// the pod's record says so is judged at the pod's next version, not at
	// the write: the record follows the write by one API call.
	RuleConfigCopies Rule = "config-copies"
	// RuleVolumeData (final state): every claim that received a marker
	// file and still exists as the same object is bound to the same volume
	// and the marker is still in the volume's directory.
	RuleVolumeData Rule = "volume-data"
)
