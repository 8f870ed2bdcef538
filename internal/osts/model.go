package osts

import (
	"cmp"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/defaults"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// DefaultProgressDeadline applies when spec.progressDeadlineSeconds is
// unset, which the schema's default normally prevents.
const DefaultProgressDeadline = 600

// View is the apps/v1 StatefulSet the planner reads for an extended set:
// the same metadata, spec and status, defaulted the way the API server
// defaults an apps/v1 set (a custom resource's pod template is not
// defaulted by the API server), so the same manifest yields the same pods,
// claims and revision names in both kinds. Update strategies apps/v1 does
// not have (Recreate) keep their type; the rolling update always has its
// block, since an extended set is never updated as a gate-off apps/v1 set.
func View(s *v1alpha1.StatefulSet) *appsv1.StatefulSet {
	v := &appsv1.StatefulSet{
		// The view's type is the extended kind's, so that events recorded
		// on it and owner references made from it name the extended set.
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.Kind.Kind},
		ObjectMeta: *s.ObjectMeta.DeepCopy(),
		Spec: appsv1.StatefulSetSpec{
			Replicas:             ptr.To(ptr.Deref(s.Spec.Replicas, 1)),
			Selector:             s.Spec.Selector.DeepCopy(),
			Template:             *s.Spec.Template.DeepCopy(),
			VolumeClaimTemplates: deepCopyClaims(s.Spec.VolumeClaimTemplates),
			ServiceName:          s.Spec.ServiceName,
			PodManagementPolicy:  s.Spec.PodManagementPolicy,
			UpdateStrategy:       strategyView(s.Spec.UpdateStrategy),
			RevisionHistoryLimit: ptr.To(ptr.Deref(s.Spec.RevisionHistoryLimit, 10)),
			MinReadySeconds:      s.Spec.MinReadySeconds,
		},
		Status: statusView(s.Status),
	}
	if p := s.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		v.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: p.WhenDeleted, WhenScaled: p.WhenScaled}
	}
	if o := s.Spec.Ordinals; o != nil {
		v.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: o.Start}
	}
	defaults.StatefulSet(v, defaults.Options{MaxUnavailable: true})
	storedPodSpec(&v.Spec.Template.Spec)
	return v
}

// storedPodSpec makes a defaulted pod spec what the API server stores for
// an apps/v1 set: its round trip through the internal version also copies
// serviceAccountName into the deprecated serviceAccount field (and reads
// serviceAccount when serviceAccountName is empty).
func storedPodSpec(spec *corev1.PodSpec) {
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
}

func deepCopyClaims(in []corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim {
	if in == nil {
		return nil
	}
	out := make([]corev1.PersistentVolumeClaim, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	return out
}

func strategyView(s v1alpha1.StatefulSetUpdateStrategy) appsv1.StatefulSetUpdateStrategy {
	t := appsv1.StatefulSetUpdateStrategyType(s.Type)
	if t == "" {
		t = appsv1.RollingUpdateStatefulSetStrategyType
	}
	out := appsv1.StatefulSetUpdateStrategy{Type: t}
	if t != appsv1.RollingUpdateStatefulSetStrategyType {
		return out
	}
	out.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](0), MaxUnavailable: ptr.To(intstr.FromInt32(1))}
	if ru := s.RollingUpdate; ru != nil {
		if ru.Partition != nil {
			out.RollingUpdate.Partition = ptr.To(*ru.Partition)
		}
		if ru.MaxUnavailable != nil {
			out.RollingUpdate.MaxUnavailable = ptr.To(*ru.MaxUnavailable)
		}
	}
	return out
}

func statusView(s v1alpha1.StatefulSetStatus) appsv1.StatefulSetStatus {
	return appsv1.StatefulSetStatus{
		ObservedGeneration: s.ObservedGeneration, Replicas: s.Replicas, ReadyReplicas: s.ReadyReplicas,
		CurrentReplicas: s.CurrentReplicas, UpdatedReplicas: s.UpdatedReplicas, AvailableReplicas: s.AvailableReplicas,
		CurrentRevision: s.CurrentRevision, UpdateRevision: s.UpdateRevision, CollisionCount: s.CollisionCount,
	}
}

// Extended is the planner's view of what the extended kind adds: the
// set's spec, with every default applied and every value scaled here,
// and its last status. Nothing is added to it afterwards: what the
// controller observes around the set goes in a planner.Observed (Domains,
// StorageClasses, JudgeNodes, GroupTurn). A value that cannot be read is
// listed in Invalid, which every plan reports.
func Extended(s *v1alpha1.StatefulSet) *planner.Extended {
	e := &planner.Extended{
		Owner:            v1alpha1.Kind,
		Recreate:         s.Spec.UpdateStrategy.Type == v1alpha1.RecreateStatefulSetStrategyType,
		SelfHealing:      true,
		OnFailure:        v1alpha1.FailureReport,
		ProgressDeadline: secondsOf(ptr.Deref(s.Spec.ProgressDeadlineSeconds, DefaultProgressDeadline)),
		MaxUnavailable:   1,
		Last:             lastStatus(s.Status),
		ReleaseHold:      s.Annotations[v1alpha1.ReleaseHoldAnnotation],
		Reserved:         Reserved(s),
		ClaimUpdate:      s.Spec.VolumeClaimUpdateStrategy.Type,
		ResizeTimeout:    secondsOf(DefaultResizeTimeout),
		Budgets:          budgets(s),
	}
	e.ScaleUpMaxUnavailable = scaleUpLimit(e, s)
	if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		e.Paused = ru.Paused
		e.SelfHealing = ru.SelfHealing != v1alpha1.SelfHealingDisabled
		if ru.OnFailure != "" {
			e.OnFailure = ru.OnFailure
		}
		e.MaxUnavailable = rollingMaxUnavailable(e, s, ru)
		e.Priority = priority(ru.Priority)
		podsInPlace(e, ru)
		e.Topology = Topology(ru.Topology)
		e.PartitionCount = ru.PartitionMode == v1alpha1.PartitionCount
	}
	if l := s.Spec.Lifecycle; l != nil {
		e.PreUpdate = hook(s.Namespace, "preUpdate", v1alpha1.PreUpdateHookLabel, l.PreUpdate)
		e.PreDelete = hook(s.Namespace, "preDelete", v1alpha1.PreDeleteHookLabel, l.PreDelete)
		e.Switchover = hook(s.Namespace, "switchover", v1alpha1.SwitchoverHookLabel, l.Switchover)
		memberHooks(e, s.Namespace, l)
	}
	e.Roles = roles(s.Spec.Roles)
	e.Offline = Offline(s)
	e.NodeFailure = NodeFailure(s.Spec.NodeFailurePolicy)
	e.MoveOffDrainedNodes = s.Spec.NodeDrainPolicy != v1alpha1.NodeDrainIgnore
	e.Reload = Reload(s)
	e.DisruptionBudget = managedBudget(e, s)
	return e
}

// rollingMaxUnavailable is rollingUpdate.maxUnavailable scaled to
// replicas (planner.ScaleMaxUnavailable), for the Available condition;
// 1 when unset. One that cannot be read counts 1 and is reported in
// e.Invalid; the rolling update does not proceed.
func rollingMaxUnavailable(e *planner.Extended, s *v1alpha1.StatefulSet, ru *v1alpha1.RollingUpdateStatefulSetStrategy) int {
	if ru.MaxUnavailable == nil {
		return 1
	}
	n, err := planner.ScaleMaxUnavailable(ru.MaxUnavailable, ptr.Deref(s.Spec.Replicas, 1))
	if err != nil {
		e.Invalid = append(e.Invalid, planner.SpecError{Field: planner.FieldRollingMaxUnavailable, Reason: planner.ReasonInvalidMaxUnavailable,
			Message: err.Error() + "; the rolling update does not proceed, and the Available condition allows 1 unavailable pod"})
		return 1
	}
	return n
}

// roles is spec.roles for the planner, each role's order resolved: an
// exclusive role without updateOrder goes last.
func roles(r *v1alpha1.Roles) *planner.RoleSpec {
	if r == nil {
		return nil
	}
	out := &planner.RoleSpec{LabelKey: r.LabelKey}
	for _, v := range r.Values {
		role := planner.Role{Name: v.Name, Quorum: v.Quorum, Exclusive: v.Exclusive}
		switch {
		case v.UpdateOrder != nil:
			role.Order = *v.UpdateOrder
		case v.Exclusive:
			role.Order = planner.LastRoleOrder
		}
		out.Roles = append(out.Roles, role)
	}
	out.Probe = RoleProbe(r.RoleProbe)
	return out
}

// RoleProbe is spec.roles.roleProbe with its defaults resolved (the
// schema sets them; a client that skips it gets the same), nil for none.
func RoleProbe(p *v1alpha1.RoleProbe) *planner.RoleProbe {
	if p == nil {
		return nil
	}
	return &planner.RoleProbe{Port: p.HTTP.Port, Path: cmp.Or(p.HTTP.Path, v1alpha1.DefaultRoleProbePath),
		Period:           time.Duration(cmp.Or(p.PeriodSeconds, v1alpha1.DefaultRoleProbePeriod)) * time.Second,
		Timeout:          time.Duration(cmp.Or(p.TimeoutSeconds, v1alpha1.DefaultRoleProbeTimeout)) * time.Second,
		FailureThreshold: cmp.Or(p.FailureThreshold, v1alpha1.DefaultRoleProbeThreshold)}
}

// DefaultHookTimeout applies when a hook's timeoutSeconds is unset, which
// the schema's default normally prevents.
const DefaultHookTimeout = 300

// Default ports of a service hook, with and without a CA bundle.
const (
	DefaultHookServicePort    = 80
	DefaultHookServiceTLSPort = 443
)

// hook is one of spec.lifecycle's hooks for the planner; nil when unset.
// A hook with no handler, which the schema refuses, is a handshake; one
// with several, which it refuses too, calls its URL.
func hook(namespace, name, label string, h *v1alpha1.LifecycleHook) *planner.Hook {
	if h == nil {
		return nil
	}
	out := &planner.Hook{Name: name, Label: label, Timeout: secondsOf(DefaultHookTimeout), Proceed: h.FailurePolicy == v1alpha1.HookProceed}
	if h.TimeoutSeconds > 0 {
		out.Timeout = secondsOf(h.TimeoutSeconds)
	}
	switch {
	case h.HTTP != nil:
		out.HTTP = &planner.HookEndpoint{URL: h.HTTP.URL, CABundle: h.HTTP.CABundle}
	case h.Service != nil:
		out.HTTP = serviceHook(namespace, h.Service)
	}
	return out
}

// serviceHook is a service handler with its defaults: port 443 with a CA
// bundle, 80 without, and path "/".
func serviceHook(namespace string, s *v1alpha1.ServiceHook) *planner.HookEndpoint {
	svc := &planner.HookService{Namespace: namespace, Name: s.Name, Port: s.Port, Path: s.Path}
	if svc.Port == 0 {
		svc.Port = DefaultHookServicePort
		if len(s.CABundle) > 0 {
			svc.Port = DefaultHookServiceTLSPort
		}
	}
	if svc.Path == "" {
		svc.Path = "/"
	}
	return &planner.HookEndpoint{Service: svc, CABundle: s.CABundle}
}

// DefaultResizeTimeout applies when rollingUpdate.inPlace.resizeTimeoutSeconds
// is unset, which the schema's default normally prevents.
const DefaultResizeTimeout = 120

// podsInPlace is rollingUpdate's podUpdatePolicy and inPlace for the
// planner.
func podsInPlace(e *planner.Extended, ru *v1alpha1.RollingUpdateStatefulSetStrategy) {
	e.PodUpdate = ru.PodUpdatePolicy
	if ip := ru.InPlace; ip != nil {
		e.InPlaceGrace = secondsOf(ip.GracePeriodSeconds)
		if ip.ResizeTimeoutSeconds > 0 {
			e.ResizeTimeout = secondsOf(ip.ResizeTimeoutSeconds)
		}
	}
}

// priority is rollingUpdate.priority for the planner, which reads the
// selectors and reports one it cannot read.
func priority(rules []v1alpha1.UpdatePriorityRule) []planner.PriorityRule {
	if len(rules) == 0 {
		return nil
	}
	out := make([]planner.PriorityRule, len(rules))
	for i, r := range rules {
		out[i] = planner.PriorityRule{Weight: r.Weight, Selector: r.Selector.DeepCopy()}
	}
	return out
}

// Reserved is the set's spec.reserveOrdinals as the planner reads them.
// The schema admits only entries that parse; were one not to, the others
// still hold, so no pod is ever created at an ordinal the user meant to
// reserve because of a typo next to it.
func Reserved(s *v1alpha1.StatefulSet) []planner.OrdinalRange {
	ranges, _ := v1alpha1.ParseReserveOrdinals(s.Spec.ReserveOrdinals)
	if len(ranges) == 0 {
		return nil
	}
	out := make([]planner.OrdinalRange, len(ranges))
	for i, r := range ranges {
		out[i] = planner.OrdinalRange{Low: r.Low, High: r.High}
	}
	return out
}

func lastStatus(s v1alpha1.StatefulSetStatus) planner.ExtendedStatus {
	x := planner.ExtendedStatus{
		UpdatedReadyReplicas: s.UpdatedReadyReplicas, UpdatedAvailableReplicas: s.UpdatedAvailableReplicas,
		LastCompletedRevision: s.LastCompletedRevision, Conditions: s.Conditions,
		UpdateRevision: s.UpdateRevision, UpdatedReplicas: s.UpdatedReplicas,
	}
	if s.LastProgressTime != nil {
		x.LastProgress = s.LastProgressTime.Time
	}
	for _, b := range s.BlockedBy {
		x.BlockedBy = append(x.BlockedBy, planner.PodFailure{Pod: b.Pod, Revision: b.Revision, Reason: b.Reason,
			Message: b.Message, Permanent: b.Permanent, Since: b.Since.Time})
	}
	if r := s.Rollback; r != nil {
		x.Rollback = &planner.RollbackRecord{From: r.From, To: r.To, Reason: r.Reason, Time: r.Time.Time}
	}
	if h := s.Hold; h != nil {
		x.Hold = &planner.Hold{ID: h.ID, Action: h.Action, FailedRevision: h.FailedRevision, Revision: h.Revision, Reason: h.Reason, Time: h.Time.Time}
	}
	return x
}

// Status is the extended set's status from a plan: apps/v1's counts and
// revisions, what the extended kind adds, and the selector string the
// scale subresource reads.
func Status(s *v1alpha1.StatefulSet, st appsv1.StatefulSetStatus, x *planner.ExtendedPlan) v1alpha1.StatefulSetStatus {
	out := v1alpha1.StatefulSetStatus{
		ObservedGeneration: st.ObservedGeneration, Replicas: st.Replicas, ReadyReplicas: st.ReadyReplicas,
		CurrentReplicas: st.CurrentReplicas, UpdatedReplicas: st.UpdatedReplicas, AvailableReplicas: st.AvailableReplicas,
		CurrentRevision: st.CurrentRevision, UpdateRevision: st.UpdateRevision, CollisionCount: st.CollisionCount,
		LabelSelector: selectorString(s.Spec.Selector),
	}
	if x == nil {
		return out
	}
	e := x.Status
	out.UpdatedReadyReplicas, out.UpdatedAvailableReplicas = e.UpdatedReadyReplicas, e.UpdatedAvailableReplicas
	out.LastCompletedRevision, out.Conditions = e.LastCompletedRevision, e.Conditions
	if !e.LastProgress.IsZero() {
		out.LastProgressTime = ptr.To(metav1.NewTime(e.LastProgress))
	}
	for _, f := range e.BlockedBy {
		out.BlockedBy = append(out.BlockedBy, v1alpha1.BlockedPod{Pod: f.Pod, Revision: f.Revision, Reason: f.Reason,
			Message: f.Message, Permanent: f.Permanent, Since: metav1.NewTime(f.Since)})
	}
	if r := e.Rollback; r != nil {
		out.Rollback = &v1alpha1.RollbackRecord{From: r.From, To: r.To, Reason: r.Reason, Time: metav1.NewTime(r.Time)}
	}
	if h := e.Hold; h != nil {
		out.Hold = &v1alpha1.RolloutHold{ID: h.ID, Action: h.Action, FailedRevision: h.FailedRevision, Revision: h.Revision, Reason: h.Reason, Time: metav1.NewTime(h.Time)}
	}
	for _, c := range e.VolumeClaims {
		out.VolumeClaims = append(out.VolumeClaims, v1alpha1.VolumeClaimStatus{Name: c.Name, MatchingReplicas: c.MatchingReplicas, ReadyReplicas: c.ReadyReplicas})
	}
	out.Members, out.MembersOmitted = members(e), e.MembersOmitted
	for _, o := range e.Overrides {
		out.Overrides = append(out.Overrides, v1alpha1.OverrideStatus{Name: o.Name, Replicas: o.Replicas})
	}
	return out
}

// RevisionOptions says what the set's revisions hold beyond the pod
// template: the claim templates too when its claims follow them in place,
// and its overrides when it has any.
func RevisionOptions(s *v1alpha1.StatefulSet) revision.Options {
	return revision.Options{Claims: s.Spec.VolumeClaimUpdateStrategy.Type == v1alpha1.InPlaceVolumeClaimUpdateStrategyType, Overrides: s.Spec.Overrides}
}

func selectorString(sel *metav1.LabelSelector) string {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return ""
	}
	return s.String()
}

func secondsOf(n int32) time.Duration { return time.Duration(n) * time.Second }

// RestoreOverrides is the JSON patch operation that puts rev's overrides
// in spec.overrides, for an undo or a rollback to rev: the revision's list,
// or none when it holds none and the set has some (no operation when
// neither has any).
func RestoreOverrides(s *v1alpha1.StatefulSet, rev *appsv1.ControllerRevision) ([]map[string]any, error) {
	held, err := revision.Overrides(rev)
	switch {
	case err != nil:
		return nil, err
	case len(held) > 0:
		return []map[string]any{{"op": "add", "path": "/spec/overrides", "value": held}}, nil
	case len(s.Spec.Overrides) > 0:
		return []map[string]any{{"op": "remove", "path": "/spec/overrides"}}, nil
	}
	return nil, nil
}
