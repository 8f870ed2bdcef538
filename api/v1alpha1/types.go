package v1alpha1

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// StatefulSet is apps/v1's StatefulSet with rollouts that heal, stop and
// roll back by themselves. Its spec holds every apps/v1 field with the
// same JSON and defaults.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=osts,categories=all
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.labelSelector
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`
// +kubebuilder:printcolumn:name="Current Revision",type=string,JSONPath=`.status.currentRevision`,priority=1
// +kubebuilder:printcolumn:name="Update Revision",type=string,JSONPath=`.status.updateRevision`,priority=1
// +kubebuilder:printcolumn:name="Progressing",type=string,JSONPath=`.status.conditions[?(@.type=="Progressing")].reason`
// +kubebuilder:printcolumn:name="Held",type=string,JSONPath=`.status.hold.action`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') && size(self.metadata.name) <= 63",message="metadata.name must be a DNS label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit",fieldPath=`.metadata`
// +kubebuilder:validation:XValidation:rule="self.spec.podManagementPolicy == oldSelf.spec.podManagementPolicy || !has(self.status) || !has(self.status.updateRevision) || (has(self.status.currentRevision) && self.status.currentRevision == self.status.updateRevision && (has(self.status.updatedReplicas) ? self.status.updatedReplicas : 0) == self.status.replicas)",message="spec.podManagementPolicy may change only when no rollout is in progress (status.currentRevision equals status.updateRevision and every pod is updated)",fieldPath=`.spec.podManagementPolicy`
type StatefulSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the set.
	Spec StatefulSetSpec `json:"spec,omitempty"`
	// Status is the observed state of the set, written by the controller.
	Status StatefulSetStatus `json:"status,omitempty"`
}

// StatefulSetList is a list of extended StatefulSets.
//
// +kubebuilder:object:root=true
type StatefulSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StatefulSet `json:"items"`
}

// StatefulSetSpec is apps/v1's StatefulSetSpec, field for field, plus
// progressDeadlineSeconds and the rollout fields of updateStrategy.
//
// +kubebuilder:validation:XValidation:rule="self.selector == oldSelf.selector",message="spec.selector is immutable",fieldPath=`.selector`
// +kubebuilder:validation:XValidation:rule=`(has(self.serviceName) ? self.serviceName : "") == (has(oldSelf.serviceName) ? oldSelf.serviceName : "")`,message="spec.serviceName is immutable",fieldPath=`.serviceName`
// +kubebuilder:validation:XValidation:rule="(has(self.selector.matchLabels) && size(self.selector.matchLabels) > 0) || (has(self.selector.matchExpressions) && size(self.selector.matchExpressions) > 0)",message="spec.selector must not be empty",fieldPath=`.selector`
// +kubebuilder:validation:XValidation:rule="!has(self.selector.matchLabels) || self.selector.matchLabels.all(k, has(self.template.metadata) && has(self.template.metadata.labels) && k in self.template.metadata.labels && self.template.metadata.labels[k] == self.selector.matchLabels[k])",message="spec.selector.matchLabels must match spec.template.metadata.labels",fieldPath=`.selector.matchLabels`
// +kubebuilder:validation:XValidation:rule="!has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, e.operator == 'In' ? (has(self.template.metadata) && has(self.template.metadata.labels) && e.key in self.template.metadata.labels && has(e.values) && self.template.metadata.labels[e.key] in e.values) : e.operator == 'NotIn' ? (!has(self.template.metadata) || !has(self.template.metadata.labels) || !(e.key in self.template.metadata.labels) || !has(e.values) || !(self.template.metadata.labels[e.key] in e.values)) : e.operator == 'Exists' ? (has(self.template.metadata) && has(self.template.metadata.labels) && e.key in self.template.metadata.labels) : (!has(self.template.metadata) || !has(self.template.metadata.labels) || !(e.key in self.template.metadata.labels)))",message="spec.selector.matchExpressions must match spec.template.metadata.labels",fieldPath=`.selector.matchExpressions`
// +kubebuilder:validation:XValidation:rule="has(self.template.spec) && size(self.template.spec.containers) > 0",message="spec.template.spec.containers must list at least one container",fieldPath=`.template.spec.containers`
// +kubebuilder:validation:XValidation:rule="!has(self.template.spec) || !has(self.template.spec.restartPolicy) || self.template.spec.restartPolicy == 'Always'",message="spec.template.spec.restartPolicy must be Always",fieldPath=`.template.spec.restartPolicy`
// +kubebuilder:validation:XValidation:rule="!has(self.template.spec) || !has(self.template.spec.activeDeadlineSeconds)",message="spec.template.spec.activeDeadlineSeconds is not supported in a StatefulSet",fieldPath=`.template.spec.activeDeadlineSeconds`
// +kubebuilder:validation:XValidation:rule="!has(self.progressDeadlineSeconds) || !has(self.minReadySeconds) || self.progressDeadlineSeconds > self.minReadySeconds",message="spec.progressDeadlineSeconds must be greater than spec.minReadySeconds",fieldPath=`.progressDeadlineSeconds`
// +kubebuilder:validation:XValidation:rule="!has(self.roles) || ((!has(self.selector.matchLabels) || !(self.roles.labelKey in self.selector.matchLabels)) && (!has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, e.key != self.roles.labelKey)))",message="spec.roles.labelKey must not be a key of spec.selector: a pod whose role changes would leave the set",fieldPath=`.roles.labelKey`
// +kubebuilder:validation:XValidation:rule="!has(self.nodeFailurePolicy) || !has(self.nodeFailurePolicy.replaceAfterSeconds) || !has(self.roles) || !self.roles.values.exists(r, has(r.exclusive) && r.exclusive) || (has(self.nodeFailurePolicy.replaceExclusiveRoleHolders) && self.nodeFailurePolicy.replaceExclusiveRoleHolders)",message="spec.nodeFailurePolicy.replaceAfterSeconds may leave two pods holding an exclusive role of spec.roles: set replaceExclusiveRoleHolders true to accept it",fieldPath=`.nodeFailurePolicy.replaceAfterSeconds`
// +kubebuilder:validation:XValidation:rule="!has(self.lifecycle) || !has(self.lifecycle.reload) || (has(self.configRevisions) && has(self.configRevisions.apply) && self.configRevisions.apply == 'Reload')",message="spec.lifecycle.reload runs only when spec.configRevisions.apply is Reload: set it, or remove the hook",fieldPath=`.lifecycle.reload`
// +kubebuilder:validation:XValidation:rule="!has(self.disruptionBudget) || !has(self.updateStrategy) || !has(self.updateStrategy.rollingUpdate) || !has(self.updateStrategy.rollingUpdate.respectDisruptionBudgets) || self.updateStrategy.rollingUpdate.respectDisruptionBudgets",message="spec.disruptionBudget counts the set's own removals only when they are evicted: set spec.updateStrategy.rollingUpdate.respectDisruptionBudgets to true (the default) or remove spec.disruptionBudget",fieldPath=`.disruptionBudget`
// +kubebuilder:validation:XValidation:rule="!has(self.lifecycle) || !has(self.lifecycle.switchover) || (has(self.roles) && self.roles.values.exists(r, has(r.exclusive) && r.exclusive))",message="spec.lifecycle.switchover moves an exclusive role: set spec.roles with at least one role of exclusive true",fieldPath=`.lifecycle.switchover`
// +kubebuilder:validation:XValidation:rule="!has(self.overrides) || self.overrides.all(o, !has(o.volumeClaimTemplates) || o.volumeClaimTemplates.all(c, has(self.volumeClaimTemplates) && self.volumeClaimTemplates.exists(t, has(t.metadata) && has(t.metadata.name) && t.metadata.name == c.name)))",message="spec.overrides[].volumeClaimTemplates[].name must name one of spec.volumeClaimTemplates",fieldPath=`.overrides`
// +kubebuilder:validation:XValidation:rule="!has(self.overrides) || !has(self.selector.matchLabels) || self.overrides.all(o, !has(o.template) || !has(o.template.metadata) || !has(o.template.metadata.labels) || o.template.metadata.labels.all(k, !(k in self.selector.matchLabels) || o.template.metadata.labels[k] == self.selector.matchLabels[k]))",message="spec.overrides[].template.metadata.labels must not change a label of spec.selector.matchLabels: the pod would leave its set",fieldPath=`.overrides`
// +kubebuilder:validation:XValidation:rule="!has(self.overrides) || !has(self.selector.matchExpressions) || self.overrides.all(o, !has(o.template) || !has(o.template.metadata) || !has(o.template.metadata.labels) || self.selector.matchExpressions.all(e, !(e.key in o.template.metadata.labels) || (e.operator == 'In' ? has(e.values) && o.template.metadata.labels[e.key] in e.values : e.operator == 'NotIn' ? !has(e.values) || !(o.template.metadata.labels[e.key] in e.values) : e.operator == 'Exists')))",message="spec.overrides[].template.metadata.labels must still match spec.selector.matchExpressions: the pod would leave its set",fieldPath=`.overrides`
type StatefulSetSpec struct {
	// Replicas is the number of pods wanted. Defaults to 1; at most
	// 100000.
	//
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Selector is a label query over pods that should match the replica
	// count. It must match the pod template's labels. Immutable. At most 256
	// matchLabels and 64 matchExpressions of at most 256 values each.
	Selector *metav1.LabelSelector `json:"selector"`

	// Template is the object that describes the pod that will be created
	// if insufficient replicas are detected.
	Template corev1.PodTemplateSpec `json:"template"`

	// VolumeClaimTemplates is a list of claims that pods are allowed to
	// reference; each pod gets its own claim from each template.
	//
	// Unlike apps/v1 they may change: volumeClaimUpdateStrategy says how a
	// change reaches the claims. Template names are unique.
	//
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, (has(y.metadata) && has(y.metadata.name) ? y.metadata.name : '') == (has(x.metadata) && has(x.metadata.name) ? x.metadata.name : '')))",message="spec.volumeClaimTemplates names must be unique"
	VolumeClaimTemplates []corev1.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty"`

	// VolumeClaimUpdateStrategy says how changes to volumeClaimTemplates
	// reach the claims of existing pods. Defaults to type OnClaimDelete.
	//
	// +kubebuilder:default={type: OnClaimDelete}
	// +optional
	VolumeClaimUpdateStrategy VolumeClaimUpdateStrategy `json:"volumeClaimUpdateStrategy,omitzero"`

	// ServiceName is the name of the service that governs the set's
	// network identity. Immutable.
	//
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	ServiceName string `json:"serviceName,omitempty"`

	// PodManagementPolicy controls how pods are created during initial
	// scale up, when replacing pods on nodes, or when scaling down:
	// OrderedReady (the default) or Parallel. Unlike apps/v1 it may change
	// while no rollout is in progress.
	//
	// +kubebuilder:default=OrderedReady
	// +kubebuilder:validation:Enum=OrderedReady;Parallel
	// +optional
	PodManagementPolicy appsv1.PodManagementPolicyType `json:"podManagementPolicy,omitempty"`

	// UpdateStrategy says how the set's pods are moved to a new template.
	// Defaults to type RollingUpdate with the rollingUpdate defaults.
	//
	// +kubebuilder:default={type: RollingUpdate, rollingUpdate: {}}
	// +optional
	UpdateStrategy StatefulSetUpdateStrategy `json:"updateStrategy,omitzero"`

	// RevisionHistoryLimit is how many old ControllerRevisions are kept.
	// Defaults to 10.
	//
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +optional
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`

	// MinReadySeconds is how long a newly Ready pod must stay Ready, with
	// none of its containers crashing, to count as Available.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`

	// PersistentVolumeClaimRetentionPolicy says what happens to the claims
	// made from VolumeClaimTemplates when the set is deleted or scaled
	// down. Defaults to Retain for both.
	//
	// +kubebuilder:default={whenDeleted: Retain, whenScaled: Retain}
	// +optional
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty"`

	// Ordinals controls the numbering of the set's pods.
	//
	// +optional
	Ordinals *StatefulSetOrdinals `json:"ordinals,omitempty"`

	// ReserveOrdinals are ordinals that get no pod: integers and ranges
	// "low-high" (both ends included). Replicas still counts pods, so the
	// set's ordinals are the first replicas ordinals from ordinals.start
	// that are not reserved. Reserving the ordinal of a running pod
	// removes that pod and, unless replicas is lowered with it, creates one
	// at the next free ordinal; the removed pod's claims follow the
	// whenScaled retention policy.
	//
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:XValidation:rule="self.all(x, type(x) == int ? x >= 0 && x <= 2147483647 : x.matches('^[0-9]{1,10}(-[0-9]{1,10})?$') && int(x.split('-')[0]) <= int(x.split('-')[x.split('-').size() - 1]) && int(x.split('-')[x.split('-').size() - 1]) <= 2147483647)",message="spec.reserveOrdinals entries must be ordinals (integers from 0 to 2147483647) or ranges \"low-high\" of them with low <= high, such as 5 or \"5-7\""
	// +listType=atomic
	// +optional
	ReserveOrdinals []intstr.IntOrString `json:"reserveOrdinals,omitempty"`

	// OfflineOrdinals are members that are stopped: integers and ranges
	// "low-high", as reserveOrdinals. An offline ordinal stays one of the
	// set's (replicas counts it, and no other pod takes its place); its
	// pod is deleted and not created again, and its claims are kept
	// whatever persistentVolumeClaimRetentionPolicy.whenScaled says.
	// Removing it from the list creates the pod again, on the same claims.
	//
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:XValidation:rule="self.all(x, type(x) == int ? x >= 0 && x <= 2147483647 : x.matches('^[0-9]{1,10}(-[0-9]{1,10})?$') && int(x.split('-')[0]) <= int(x.split('-')[x.split('-').size() - 1]) && int(x.split('-')[x.split('-').size() - 1]) <= 2147483647)",message="spec.offlineOrdinals entries must be ordinals (integers from 0 to 2147483647) or ranges \"low-high\" of them with low <= high, such as 5 or \"5-7\""
	// +listType=atomic
	// +optional
	OfflineOrdinals []intstr.IntOrString `json:"offlineOrdinals,omitempty"`

	// ProgressDeadlineSeconds is how long a rollout may go without progress
	// (a pod reaching the update revision and becoming Available) before
	// the Progressing condition turns False with reason
	// ProgressDeadlineExceeded and updateStrategy.rollingUpdate.onFailure
	// applies. Defaults to 600.
	//
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=1
	// +optional
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`

	// Lifecycle holds hooks that run before the controller updates or
	// deletes a running pod, each with a timeout and a failure policy.
	//
	// +optional
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`

	// Roles names the pod label that says each pod's role to the
	// application, and what each role means to the rolling update: its
	// order, a quorum that is kept Available, and roles one pod at most
	// holds.
	//
	// +optional
	Roles *Roles `json:"roles,omitempty"`
	// NodeFailurePolicy is what the controller does for a pod whose node
	// is lost: recreate its local volumes elsewhere, force-delete it after
	// a while. Unset keeps upstream's behaviour (docs/node-failure.md).
	//
	// +optional
	NodeFailurePolicy *NodeFailurePolicy `json:"nodeFailurePolicy,omitempty"`
	// NodeDrainPolicy is what the set does when a node one of its pods
	// runs on is cordoned or tainted for a drain: Move (the default)
	// moves the pod off it gracefully, in the set's own turn and budget,
	// so that a drain finds nothing of the set left to evict; Ignore
	// leaves it to the drain, as apps/v1 does (docs/drains.md).
	//
	// +kubebuilder:default=Move
	// +optional
	NodeDrainPolicy NodeDrainPolicy `json:"nodeDrainPolicy,omitempty"`
	// DisruptionBudget makes the set keep a PodDisruptionBudget of its
	// own, sized from its quorum and shrunk while its own members are
	// down, so that evictions by anyone never take more than the quorum
	// allows (docs/disruption.md). Unset, the set keeps none.
	//
	// +optional
	DisruptionBudget *DisruptionBudget `json:"disruptionBudget,omitempty"`
	// Overrides give the pods at some ordinals a different template and
	// storage: images, args, env and resources of containers, labels,
	// annotations and scheduling, claim size and classes. They are part
	// of the set's revisions (docs/overrides.md).
	//
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(a, self.all(b, a.name == b.name || a.ordinals.all(x, b.ordinals.all(y, (type(x) == int ? x : int(x.split('-')[0])) > (type(y) == int ? y : int(y.split('-')[y.split('-').size() - 1])) || (type(y) == int ? y : int(y.split('-')[0])) > (type(x) == int ? x : int(x.split('-')[x.split('-').size() - 1]))))))",message="spec.overrides: two overrides list the same ordinal; an ordinal may have one override at most"
	// +listType=map
	// +listMapKey=name
	// +optional
	Overrides []OrdinalOverride `json:"overrides,omitempty"`
	// ScaleStrategy tunes how missing pods are created: maxUnavailable
	// bounds a Parallel scale-up.
	//
	// +optional
	ScaleStrategy *ScaleStrategy `json:"scaleStrategy,omitempty"`
	// ConfigRevisions makes the data of the ConfigMaps and Secrets the
	// template reads part of the set's revisions, so that a change of it
	// rolls out, and is undone, as a template change is
	// (docs/config-revisions.md). Unset leaves them out, as upstream.
	//
	// +kubebuilder:validation:XValidation:rule="!has(self.configMapNames) || size(self.configMapNames) == 0 || self.configMaps == 'Listed'",message="spec.configRevisions.configMapNames: list names only with configMaps: Listed"
	// +optional
	ConfigRevisions *ConfigRevisions `json:"configRevisions,omitempty"`
}

// VolumeClaimUpdateStrategyType is how a change to volumeClaimTemplates
// reaches existing claims.
//
// +kubebuilder:validation:Enum=OnClaimDelete;InPlace
type VolumeClaimUpdateStrategyType string

// Volume claim update strategy types.
const (
	// OnClaimDeleteVolumeClaimUpdateStrategyType changes no existing claim:
	// a claim gets the templates' current form only when it is created
	// again after being deleted, as in apps/v1. The set's revisions do not
	// include the templates, so they are apps/v1's.
	OnClaimDeleteVolumeClaimUpdateStrategyType VolumeClaimUpdateStrategyType = "OnClaimDelete"
	// InPlaceVolumeClaimUpdateStrategyType makes the templates part of the
	// set's revisions; the rolling update patches each pod's claims (size,
	// volumeAttributesClassName, labels, annotations) before the pod is
	// updated, and waits, within maxUnavailable, until the resize and
	// modification have finished. A pod whose pod template did not change
	// is not recreated. Storage never shrinks.
	InPlaceVolumeClaimUpdateStrategyType VolumeClaimUpdateStrategyType = "InPlace"
)

// VolumeClaimUpdateStrategy says how changes to volumeClaimTemplates reach
// existing claims.
type VolumeClaimUpdateStrategy struct {
	// Type is OnClaimDelete (the default) or InPlace.
	//
	// +kubebuilder:default=OnClaimDelete
	// +optional
	Type VolumeClaimUpdateStrategyType `json:"type,omitempty"`
}

// StatefulSetPersistentVolumeClaimRetentionPolicy is apps/v1's claim
// retention policy.
type StatefulSetPersistentVolumeClaimRetentionPolicy struct {
	// WhenDeleted says what happens to the claims when the set is deleted:
	// Retain (the default) or Delete.
	//
	// +kubebuilder:default=Retain
	// +kubebuilder:validation:Enum=Retain;Delete
	// +optional
	WhenDeleted appsv1.PersistentVolumeClaimRetentionPolicyType `json:"whenDeleted,omitempty"`
	// WhenScaled says what happens to a pod's claims when the set is scaled
	// down past it: Retain (the default) or Delete.
	//
	// +kubebuilder:default=Retain
	// +kubebuilder:validation:Enum=Retain;Delete
	// +optional
	WhenScaled appsv1.PersistentVolumeClaimRetentionPolicyType `json:"whenScaled,omitempty"`
}

// StatefulSetOrdinals is apps/v1's ordinals.
type StatefulSetOrdinals struct {
	// Start is the number of the first pod. Defaults to 0.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	Start int32 `json:"start"`
}

// StatefulSetUpdateStrategyType is how a set moves its pods to a new
// template.
//
// +kubebuilder:validation:Enum=RollingUpdate;OnDelete;Recreate
type StatefulSetUpdateStrategyType string

// Update strategy types.
const (
	// RollingUpdateStatefulSetStrategyType replaces pods one (or
	// maxUnavailable) at a time, highest ordinal first.
	RollingUpdateStatefulSetStrategyType StatefulSetUpdateStrategyType = "RollingUpdate"
	// OnDeleteStatefulSetStrategyType moves a pod to the new template only
	// when it is deleted.
	OnDeleteStatefulSetStrategyType StatefulSetUpdateStrategyType = "OnDelete"
	// RecreateStatefulSetStrategyType deletes every pod, waits until all
	// are gone, and creates them again from the new template, as upstream
	// 1.37's alpha Recreate does: downtime instead of two revisions running
	// side by side.
	RecreateStatefulSetStrategyType StatefulSetUpdateStrategyType = "Recreate"
)

// StatefulSetUpdateStrategy is apps/v1's update strategy with Recreate as
// a third type.
//
// +kubebuilder:validation:XValidation:rule="!has(self.rollingUpdate) || !has(self.type) || self.type == 'RollingUpdate'",message="spec.updateStrategy.rollingUpdate is allowed only with type RollingUpdate",fieldPath=`.rollingUpdate`
type StatefulSetUpdateStrategy struct {
	// Type is RollingUpdate (the default), OnDelete or Recreate.
	//
	// +kubebuilder:default=RollingUpdate
	// +optional
	Type StatefulSetUpdateStrategyType `json:"type,omitempty"`
	// RollingUpdate configures the RollingUpdate type.
	//
	// +optional
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty"`
}

// FailurePolicy is what a rollout does when it fails: a permanent pod
// failure at the update revision, or no progress within
// progressDeadlineSeconds.
//
// +kubebuilder:validation:Enum=Report;Pause;Rollback
type FailurePolicy string

// Failure policies.
const (
	// FailureReport records conditions, events and status.blockedBy, and
	// changes nothing.
	FailureReport FailurePolicy = "Report"
	// FailurePause also holds the rollout where it is (status.hold, action
	// Paused): no further pod is updated until the spec's template changes
	// or someone releases the hold. The spec is not changed.
	FailurePause FailurePolicy = "Pause"
	// FailureRollback runs the template of status.lastCompletedRevision
	// again (status.hold, action RolledBack) until the spec's template
	// changes or someone releases the hold; self-healing replaces the
	// broken pods. The spec is not changed. A rollback that itself fails
	// is held paused; it never rolls back again on its own.
	FailureRollback FailurePolicy = "Rollback"
)

// SelfHealing says whether broken pods of an old revision are replaced.
//
// +kubebuilder:validation:Enum=Enabled;Disabled
type SelfHealing string

// Self-healing settings.
const (
	// SelfHealingEnabled replaces a pod that is not at the update revision
	// and is not Ready (or is failing) with one at the update revision,
	// even while the rollout waits: replacing it costs no availability.
	SelfHealingEnabled SelfHealing = "Enabled"
	// SelfHealingDisabled leaves such pods to the rolling update, as
	// apps/v1 does.
	SelfHealingDisabled SelfHealing = "Disabled"
)

// RollingUpdateStatefulSetStrategy is apps/v1's rolling update with
// pausing, self-healing and a failure policy.
type RollingUpdateStatefulSetStrategy struct {
	// Partition is the ordinal from which pods are updated; pods below it
	// stay at the current revision. Defaults to 0.
	//
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +optional
	Partition *int32 `json:"partition,omitempty"`
	// MaxUnavailable is the most pods that may be unavailable during the
	// update, a number or a percentage of replicas (rounded down, at least
	// 1). Defaults to 1.
	//
	// +kubebuilder:default=1
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 : self.matches('^0*([1-9][0-9]?|100)%$')",message="spec.updateStrategy.rollingUpdate.maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%"
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// Paused holds pod updates where they are; scaling still works.
	// `ordinal rollout pause` and `resume` set it.
	//
	// +optional
	Paused bool `json:"paused,omitempty"`
	// SelfHealing replaces broken pods of an old revision with the update
	// revision even while the rollout waits. Defaults to Enabled.
	//
	// +kubebuilder:default=Enabled
	// +optional
	SelfHealing SelfHealing `json:"selfHealing,omitempty"`
	// OnFailure is what a failed rollout does: Report (the default), Pause
	// or Rollback.
	//
	// +kubebuilder:default=Report
	// +optional
	OnFailure FailurePolicy `json:"onFailure,omitempty"`
	// Priority orders the rolling update by the pods' labels: each pod
	// weighs the sum of the weights of the rules that match it, pods of
	// higher weight are replaced first, and pods of equal weight highest
	// ordinal first. The partition still holds. At most 16 rules; with
	// none, pods are replaced highest ordinal first.
	//
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	Priority []UpdatePriorityRule `json:"priority,omitempty"`
	// PodUpdatePolicy is how a pod is brought to the new template:
	// Recreate (the default), InPlaceIfPossible or InPlaceOnly. With
	// either in-place policy the controller adds its readiness gate
	// (apps.ordinal.dev/in-place-ready) to the pods it creates; pods
	// created before have none and are changed in place without leaving
	// their Services' endpoints first.
	//
	// +kubebuilder:default=Recreate
	// +optional
	PodUpdatePolicy PodUpdatePolicy `json:"podUpdatePolicy,omitempty"`
	// InPlace tunes updates in place.
	//
	// +optional
	InPlace *InPlaceUpdate `json:"inPlace,omitempty"`
	// Topology makes the update go one node topology domain (zone) after
	// another, with a budget per domain.
	//
	// +optional
	Topology *RolloutTopology `json:"topology,omitempty"`
	// PartitionMode is how partition is counted: Ordinal (the default, as
	// apps/v1) or Count, the number of pods kept at the current revision
	// after the update order is applied.
	//
	// +kubebuilder:default=Ordinal
	// +optional
	PartitionMode PartitionMode `json:"partitionMode,omitempty"`
	// RespectDisruptionBudgets makes the controller remove the pods it
	// chooses to disrupt (rolling update, self-healing, delete-requested
	// pods, reserved ordinals) through the Eviction API, so that matching
	// PodDisruptionBudgets are honoured; a refused eviction is a wait,
	// listed in status.blockedBy with reason DisruptionBudget and asked
	// again after a backoff of at most 30 seconds. A plain scale-down is
	// not evicted. Defaults to true.
	//
	// +kubebuilder:default=true
	// +optional
	RespectDisruptionBudgets *bool `json:"respectDisruptionBudgets,omitempty"`
	// RolloutGroup names a group of sets in the namespace that roll out
	// one at a time: this set starts an update only when every other set
	// of the group is Available and not updating, and of several sets
	// waiting the first by name goes first. The turn is recorded in the
	// status condition RolloutGroup. A DNS label.
	//
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	RolloutGroup string `json:"rolloutGroup,omitempty"`
}

// StatefulSetStatus is apps/v1's StatefulSetStatus, with conditions as
// metav1.Condition, plus what a rollout's observer needs.
type StatefulSetStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas is the number of pods the set has.
	Replicas int32 `json:"replicas"`
	// ReadyReplicas is the number of pods that are Running and Ready.
	//
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// CurrentReplicas is the number of pods at currentRevision.
	//
	// +optional
	CurrentReplicas int32 `json:"currentReplicas,omitempty"`
	// UpdatedReplicas is the number of pods at updateRevision.
	//
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`
	// AvailableReplicas is the number of pods Ready for minReadySeconds.
	//
	// +optional
	AvailableReplicas int32 `json:"availableReplicas"`
	// UpdatedReadyReplicas is the number of pods at updateRevision that are
	// Running and Ready.
	//
	// +optional
	UpdatedReadyReplicas int32 `json:"updatedReadyReplicas,omitempty"`
	// UpdatedAvailableReplicas is the number of pods at updateRevision that
	// are Available.
	//
	// +optional
	UpdatedAvailableReplicas int32 `json:"updatedAvailableReplicas,omitempty"`
	// CurrentRevision is the revision the pods below the partition run.
	//
	// +optional
	CurrentRevision string `json:"currentRevision,omitempty"`
	// UpdateRevision is the revision of the set's template.
	//
	// +optional
	UpdateRevision string `json:"updateRevision,omitempty"`
	// LastCompletedRevision is the last revision every wanted pod ran,
	// Ready and Available: where a rollback returns to.
	//
	// +optional
	LastCompletedRevision string `json:"lastCompletedRevision,omitempty"`
	// CollisionCount counts hash collisions of revision names.
	//
	// +optional
	CollisionCount *int32 `json:"collisionCount,omitempty"`
	// LabelSelector is spec.selector as a string, for the scale subresource.
	//
	// +optional
	LabelSelector string `json:"labelSelector,omitempty"`
	// Conditions are Available, Progressing and ReplicaFailure, and
	// RoleConflict with spec.roles, RolloutGroup for a set in a rollout
	// group, Held for a set whose failure policy held a rollout, and
	// DisruptionBudget for the budgets that select the set's pods.
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// BlockedBy lists the pods the rollout cannot get past, with why.
	//
	// +optional
	// +listType=atomic
	BlockedBy []BlockedPod `json:"blockedBy,omitempty"`
	// LastProgressTime is when the rollout last made progress: a new update
	// revision, or one more pod at it created or Available. The progress
	// deadline counts from it.
	//
	// +optional
	LastProgressTime *metav1.Time `json:"lastProgressTime,omitempty"`
	// Rollback records the controller's last automatic rollback, so that a
	// rollback that fails too is never rolled back again.
	//
	// +optional
	Rollback *RollbackRecord `json:"rollback,omitempty"`
	// Hold is the failure policy's decision on the failed rollout of the
	// spec's revision, while it holds (see RolloutHold).
	//
	// +optional
	Hold *RolloutHold `json:"hold,omitempty"`
	// VolumeClaims says, for each volumeClaimTemplate, how many pods' claims
	// match it.
	//
	// +optional
	// +listType=map
	// +listMapKey=name
	VolumeClaims []VolumeClaimStatus `json:"volumeClaims,omitempty"`
	// Members lists the set's members, one per ordinal, lowest first: at
	// most MaxMembers of them, those that need attention first
	// (members.go); MembersOmitted counts the others.
	//
	// +optional
	// +listType=map
	// +listMapKey=ordinal
	// +kubebuilder:validation:MaxItems=100
	Members []MemberStatus `json:"members,omitempty"`
	// MembersOmitted is how many members did not fit in members.
	//
	// +optional
	MembersOmitted int32 `json:"membersOmitted,omitempty"`
	// Overrides says, for each of spec.overrides, how many of the set's
	// ordinals it covers.
	//
	// +optional
	// +listType=map
	// +listMapKey=name
	Overrides []OverrideStatus `json:"overrides,omitempty"`
}

// VolumeClaimStatus is how far the claims made from one
// volumeClaimTemplate have come.
type VolumeClaimStatus struct {
	// Name is the template's name.
	Name string `json:"name"`
	// MatchingReplicas is the number of the set's pods whose claim from
	// this template matches it: a capacity of at least the template's
	// request (or more, when a smaller template was refused), the
	// template's volumeAttributesClassName, and no resize or modification
	// in progress.
	//
	// +optional
	MatchingReplicas int32 `json:"matchingReplicas"`
	// ReadyReplicas is the number of those pods that are Ready.
	//
	// +optional
	ReadyReplicas int32 `json:"readyReplicas"`
}

// BlockedPod is a pod a rollout waits on, and why.
type BlockedPod struct {
	// Pod is the pod's name.
	Pod string `json:"pod"`
	// Revision is the revision the pod runs.
	//
	// +optional
	Revision string `json:"revision,omitempty"`
	// Reason is a CamelCase classification: ImagePullBackOff, InvalidImage,
	// CreateContainerConfigError, CrashLoopBackOff, Failed, NeverReady, …,
	// and for storage ResizePending, ResizeFailed, ResizeInfeasible,
	// ModifyFailed, ModifyInfeasible or ExpansionNotAllowed.
	Reason string `json:"reason"`
	// Message says more, in words.
	//
	// +optional
	Message string `json:"message,omitempty"`
	// Permanent is true for failures that waiting will not cure.
	//
	// +optional
	Permanent bool `json:"permanent,omitempty"`
	// Since is when the pod entered this state.
	//
	// +optional
	Since metav1.Time `json:"since,omitempty"`
}

// RollbackRecord is one automatic rollback.
type RollbackRecord struct {
	// From is the revision rolled back from.
	From string `json:"from"`
	// To is the revision restored.
	To string `json:"to"`
	// Reason says why.
	//
	// +optional
	Reason string `json:"reason,omitempty"`
	// Time is when.
	Time metav1.Time `json:"time"`
}

// Condition types.
const (
	// ConditionAvailable is True when at least replicas - maxUnavailable
	// pods are Available.
	ConditionAvailable = "Available"
	// ConditionProgressing is True while a rollout progresses or is
	// complete, False when it failed or exceeded its deadline.
	ConditionProgressing = "Progressing"
	// ConditionReplicaFailure is True when pods cannot be created or are
	// failing permanently.
	ConditionReplicaFailure = "ReplicaFailure"
	// ConditionConfigResolved is True when the revision holds the data
	// of every ConfigMap and Secret the template reads
	// (spec.configRevisions), False while one missing, refused or too
	// many stops new revisions; its reason says which.
	ConditionConfigResolved = "ConfigResolved"
)
