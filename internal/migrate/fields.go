package migrate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
)

// decision is what a migration to apps/v1 does with one field of the
// extended spec.
type decision int

const (
	// carried: apps/v1 has the same field at the same path; its value
	// goes across unchanged.
	carried decision = iota
	// refusedUnlessDefault: apps/v1 has no place for the field; a
	// migration is refused (--force overrides) unless the value is one
	// of the field's defaults, which apps/v1 behaves as.
	refusedUnlessDefault
	// stated: apps/v1 has no place for the field, and its default is a
	// protection apps/v1 does not give. A value apps/v1 behaves as
	// (accepted) migrates as it is; any other migrates with the loss
	// stated in the plan (Plan.Losses), and is refused (--force
	// overrides) while the loss is real now (budgetRefusals).
	stated
)

// field is one field of the extended spec and its decision. For a field
// that is refused unless default or stated, accepted tells the values
// that migrate (the zero value, the schema's default, values apps/v1
// shares) and why says what apps/v1 would do instead, for the refusal's
// or the statement's message.
type field struct {
	path     string
	decision decision
	accepted func(s *v1alpha1.StatefulSetSpec) bool
	value    func(s *v1alpha1.StatefulSetSpec) string
	why      string
}

// specFields decides every field of the extended spec, as a JSON path. A
// carried struct of the extended kind's own (the update strategy, the
// claim retention policy, ordinals) is decided field by field; a refused
// one as a whole, by a check that compares the whole struct with its
// defaults, so that a field added to it later is refused too.
// TestEveryLeafOfTheExtendedSpecIsCarriedOrRefused walks the Go type and
// sets each leaf alone: a leaf no row carries, refuses or states fails
// it, so a new field cannot reach a release without a decision.
var specFields = []field{
	{path: "spec.replicas"},
	{path: "spec.selector"},
	{path: "spec.template"},
	{path: "spec.volumeClaimTemplates"},
	{path: "spec.serviceName"},
	{path: "spec.podManagementPolicy"},
	{path: "spec.revisionHistoryLimit"},
	{path: "spec.minReadySeconds"},
	{path: "spec.persistentVolumeClaimRetentionPolicy.whenDeleted"},
	{path: "spec.persistentVolumeClaimRetentionPolicy.whenScaled"},
	{path: "spec.ordinals.start"},
	{path: "spec.updateStrategy.rollingUpdate.partition"},
	{path: "spec.updateStrategy.rollingUpdate.maxUnavailable"},
	{
		path: "spec.updateStrategy.type", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool {
			return s.UpdateStrategy.Type != v1alpha1.RecreateStatefulSetStrategyType
		},
		value: func(s *v1alpha1.StatefulSetSpec) string { return string(s.UpdateStrategy.Type) },
		why:   "apps/v1 has RollingUpdate and OnDelete; it would become RollingUpdate",
	},
	{
		path: "spec.volumeClaimUpdateStrategy", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool {
			v := s.VolumeClaimUpdateStrategy
			return v == v1alpha1.VolumeClaimUpdateStrategy{} || v == v1alpha1.VolumeClaimUpdateStrategy{Type: v1alpha1.OnClaimDeleteVolumeClaimUpdateStrategyType}
		},
		value: func(s *v1alpha1.StatefulSetSpec) string { return "type " + string(s.VolumeClaimUpdateStrategy.Type) },
		why:   "apps/v1 never changes a claim once made: later changes of the claim templates would not reach the claims",
	},
	{
		path: "spec.reserveOrdinals", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool { return len(s.ReserveOrdinals) == 0 },
		value:    func(s *v1alpha1.StatefulSetSpec) string { return jsonText(s.ReserveOrdinals) },
		why:      "apps/v1 numbers pods from spec.ordinals.start without gaps: a later scale-up would create the reserved ordinals",
	},
	{
		// Offline members inside apps/v1's ordinals are refused even with
		// --force (offlineInRange): apps/v1 would start them at once.
		path: "spec.offlineOrdinals", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool { return len(s.OfflineOrdinals) == 0 },
		value:    func(s *v1alpha1.StatefulSetSpec) string { return jsonText(s.OfflineOrdinals) },
		why:      "apps/v1 has no offline members: it would start their pods once it scales up to them",
	},
	{
		path: "spec.overrides", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool { return len(s.Overrides) == 0 },
		value:    func(s *v1alpha1.StatefulSetSpec) string { return overrideNames(s.Overrides) },
		why:      "apps/v1 has one template for every pod: the overridden pods would be replaced with the set's template",
	},
	{
		path: "spec.progressDeadlineSeconds", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool {
			return ptr.Deref(s.ProgressDeadlineSeconds, osts.DefaultProgressDeadline) == osts.DefaultProgressDeadline
		},
		value: func(s *v1alpha1.StatefulSetSpec) string { return fmt.Sprint(ptr.Deref(s.ProgressDeadlineSeconds, 0)) },
		why:   fmt.Sprintf("default %d; apps/v1 has no progress deadline", osts.DefaultProgressDeadline),
	},
	{
		path: "spec.lifecycle", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool {
			return s.Lifecycle == nil || *s.Lifecycle == v1alpha1.Lifecycle{}
		},
		value: func(s *v1alpha1.StatefulSetSpec) string { return lifecycleHooks(s.Lifecycle) },
		why:   "apps/v1 has no lifecycle hooks: its deletes and updates would not wait for them",
	},
	{
		path: "spec.roles", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool { return s.Roles == nil },
		value:    func(s *v1alpha1.StatefulSetSpec) string { return jsonText(s.Roles) },
		why:      "apps/v1 knows no roles: it would update a leader like any pod, with no quorum kept and no switchover",
	},
	{
		path: "spec.nodeFailurePolicy", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool {
			if s.NodeFailurePolicy == nil {
				return true
			}
			p := *s.NodeFailurePolicy.DeepCopy()
			if p.Volumes == v1alpha1.KeepNodeFailureVolumes {
				p.Volumes = ""
			}
			return equality.Semantic.DeepEqual(p, v1alpha1.NodeFailurePolicy{})
		},
		value: func(s *v1alpha1.StatefulSetSpec) string { return jsonText(s.NodeFailurePolicy) },
		why:   "apps/v1 neither recreates the claims of a lost node's pods nor force-deletes a pod on a node that is not Ready",
	},
	// Ignore is what apps/v1 does. Move, the default, is a protection
	// apps/v1 does not give: the plan states its loss.
	{
		path: "spec.nodeDrainPolicy", decision: stated,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool { return s.NodeDrainPolicy == v1alpha1.NodeDrainIgnore },
		value: func(s *v1alpha1.StatefulSetSpec) string {
			if s.NodeDrainPolicy == "" {
				return string(v1alpha1.NodeDrainMove)
			}
			return string(s.NodeDrainPolicy)
		},
		why: "default Move; apps/v1 leaves the pods of a drained node, or of an eviction request, to the drain and the Eviction API: no switchover, preDelete hook or quorum before they are evicted",
	},
	// Not kept as a plain budget: the budget's minAvailable is sized for
	// the moment it was written (shrunk while a member was down) and
	// would never be resized again, so keeping it would leave a drain
	// blocked or a quorum unguarded with nothing saying so. The user
	// removes the field first (the controller deletes the budget) and
	// makes a plain budget if they want one.
	{
		path: "spec.disruptionBudget", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool { return s.DisruptionBudget == nil },
		value:    func(s *v1alpha1.StatefulSetSpec) string { return jsonText(s.DisruptionBudget) },
		why: "apps/v1 keeps no PodDisruptionBudget of its own: the set's budget, sized from its quorum and resized while members are down, " +
			"would stay behind unowned at the size of the moment and never be resized; remove the field first (the controller deletes the budget), then create a plain budget if you want one",
	},
	{
		path: "spec.scaleStrategy", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool {
			return s.ScaleStrategy == nil || equality.Semantic.DeepEqual(*s.ScaleStrategy, v1alpha1.ScaleStrategy{})
		},
		value: func(s *v1alpha1.StatefulSetSpec) string { return jsonText(s.ScaleStrategy) },
		why:   "apps/v1 creates every missing pod of a Parallel set at once, however many fail",
	},
	{
		// The pods of such a set read the copies its revisions own, not
		// the objects the template names: apps/v1 would make a revision
		// of the template as written, replace every pod with one reading
		// the objects themselves, and roll no later edit of them.
		path: "spec.configRevisions", decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool { return s.ConfigRevisions == nil },
		value:    func(s *v1alpha1.StatefulSetSpec) string { return jsonText(s.ConfigRevisions) },
		why:      "apps/v1 keeps no ConfigMap or Secret data in its revisions: it would replace every pod to read the objects themselves, and roll out no later edit of them",
	},
	rolling("paused", func(r *v1alpha1.RollingUpdateStatefulSetStrategy) any { return r.Paused },
		"resume the rollout first", false),
	rolling("selfHealing", func(r *v1alpha1.RollingUpdateStatefulSetStrategy) any { return r.SelfHealing },
		"default Enabled; apps/v1 leaves broken pods of an old revision to the rolling update",
		v1alpha1.SelfHealing(""), v1alpha1.SelfHealingEnabled),
	rolling("onFailure", func(r *v1alpha1.RollingUpdateStatefulSetStrategy) any { return r.OnFailure },
		"default Report; apps/v1 neither pauses nor rolls back a failed rollout",
		v1alpha1.FailurePolicy(""), v1alpha1.FailureReport),
	rolling("priority", func(r *v1alpha1.RollingUpdateStatefulSetStrategy) any { return r.Priority },
		"apps/v1 updates pods by ordinal, highest first, whatever their labels", []v1alpha1.UpdatePriorityRule(nil), []v1alpha1.UpdatePriorityRule{}),
	rolling("podUpdatePolicy", func(r *v1alpha1.RollingUpdateStatefulSetStrategy) any { return r.PodUpdatePolicy },
		"default Recreate; apps/v1 recreates every pod it updates",
		v1alpha1.PodUpdatePolicy(""), v1alpha1.PodUpdateRecreate),
	rolling("inPlace", func(r *v1alpha1.RollingUpdateStatefulSetStrategy) any {
		return ptr.Deref(r.InPlace, v1alpha1.InPlaceUpdate{})
	},
		"apps/v1 has no updates in place",
		v1alpha1.InPlaceUpdate{}, v1alpha1.InPlaceUpdate{ResizeTimeoutSeconds: osts.DefaultResizeTimeout}),
	rolling("topology", func(r *v1alpha1.RollingUpdateStatefulSetStrategy) any { return r.Topology },
		"apps/v1 updates pods whatever their zone, with no budget per domain", (*v1alpha1.RolloutTopology)(nil)),
	rolling("partitionMode", func(r *v1alpha1.RollingUpdateStatefulSetStrategy) any { return r.PartitionMode },
		"default Ordinal; apps/v1 reads the partition as an ordinal, so other pods would be kept at the old revision",
		v1alpha1.PartitionMode(""), v1alpha1.PartitionOrdinal),
	// false is what apps/v1 does. true, the default, is a protection
	// apps/v1 does not give: the plan states its loss, and while a budget
	// selects the set's pods the migration is refused (budgetRefusals).
	{
		path: "spec.updateStrategy.rollingUpdate.respectDisruptionBudgets", decision: stated,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool { return !respectsBudgets(s) },
		value:    func(s *v1alpha1.StatefulSetSpec) string { return fmt.Sprint(respectsBudgets(s)) },
		why:      "default true; apps/v1 deletes the pods of its rolling update without asking PodDisruptionBudgets",
	},
	rolling("rolloutGroup", func(r *v1alpha1.RollingUpdateStatefulSetStrategy) any { return r.RolloutGroup },
		"apps/v1 updates each set on its own: the sets of the group could update at once", ""),
}

// respectsBudgets is rollingUpdate.respectDisruptionBudgets, true when
// unset (the schema's default), with or without a rollingUpdate block.
func respectsBudgets(s *v1alpha1.StatefulSetSpec) bool {
	ru := s.UpdateStrategy.RollingUpdate
	return ru == nil || ptr.Deref(ru.RespectDisruptionBudgets, true)
}

// rolling is a field of spec.updateStrategy.rollingUpdate refused unless
// get returns one of accepted (a missing rollingUpdate block is accepted).
func rolling(name string, get func(*v1alpha1.RollingUpdateStatefulSetStrategy) any, why string, accepted ...any) field {
	return field{
		path: "spec.updateStrategy.rollingUpdate." + name, decision: refusedUnlessDefault,
		accepted: func(s *v1alpha1.StatefulSetSpec) bool {
			ru := s.UpdateStrategy.RollingUpdate
			if ru == nil {
				return true
			}
			v := get(ru)
			for _, a := range accepted {
				if equality.Semantic.DeepEqual(v, a) {
					return true
				}
			}
			return false
		},
		value: func(s *v1alpha1.StatefulSetSpec) string { return jsonText(get(s.UpdateStrategy.RollingUpdate)) },
		why:   why,
	}
}

// jsonText is v as JSON, as a manifest would show it; a string is
// itself, unquoted.
func jsonText(v any) string {
	if reflect.ValueOf(v).Kind() == reflect.String {
		return fmt.Sprint(v)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// lifecycleHooks names the hooks a lifecycle sets.
func lifecycleHooks(l *v1alpha1.Lifecycle) string {
	var out []string
	if l.PreUpdate != nil {
		out = append(out, "preUpdate")
	}
	if l.PreDelete != nil {
		out = append(out, "preDelete")
	}
	if l.Switchover != nil {
		out = append(out, "switchover")
	}
	if l.PostCreate != nil {
		out = append(out, "postCreate")
	}
	if l.PostUpdate != nil {
		out = append(out, "postUpdate")
	}
	if l.Reload != nil {
		out = append(out, "reload")
	}
	if len(out) == 0 {
		return "set"
	}
	return fmt.Sprint(out)
}

// extendedOnly lists the extended-only settings of set that are not at
// their defaults, each as a sentence naming the field and what apps/v1
// would do instead; apps/v1 has no place for them.
func extendedOnly(set *v1alpha1.StatefulSet) []string {
	var out []string
	for _, f := range specFields {
		if f.decision == refusedUnlessDefault && !f.accepted(&set.Spec) {
			out = append(out, fmt.Sprintf("%s is %s (%s)", f.path, f.value(&set.Spec), f.why))
		}
	}
	return out
}

// losses lists the stated settings of set that apps/v1 would not keep,
// each as a sentence naming the field and what apps/v1 does instead.
func losses(set *v1alpha1.StatefulSet) []string {
	var out []string
	for _, f := range specFields {
		if f.decision == stated && !f.accepted(&set.Spec) {
			out = append(out, fmt.Sprintf("%s is %s (%s)", f.path, f.value(&set.Spec), f.why))
		}
	}
	return out
}

// overrideNames names the overrides a set has.
func overrideNames(list []v1alpha1.OrdinalOverride) string {
	names := make([]string, len(list))
	for i, o := range list {
		names[i] = o.Name
	}
	return strings.Join(names, ", ")
}
