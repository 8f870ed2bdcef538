package planner

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/defaults"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// Reasons of the warnings about overrides.
const (
	// ReasonOverrideUnknownContainer warns about an override of a
	// container the template does not have; that part of the override
	// changes nothing.
	ReasonOverrideUnknownContainer = "OverrideUnknownContainer"
	// ReasonOverrideLeavesSet warns about an override whose labels take
	// its pods out of the set's selector; nothing is planned until it
	// changes.
	ReasonOverrideLeavesSet = "OverrideLeavesSet"
)

// Override is one of a revision's overrides with its ordinals read.
type Override struct {
	Spec   v1alpha1.OrdinalOverride
	Ranges []OrdinalRange
}

// Covers reports whether the override lists ord.
func (o Override) Covers(ord int32) bool { return Reserved(o.Ranges, ord) }

// ReadOverrides reads a list of overrides. An entry of ordinals that does
// not parse (the schema admits none) is left out, and reported.
func ReadOverrides(list []v1alpha1.OrdinalOverride) ([]Override, error) {
	out := make([]Override, len(list))
	var err error
	for i, o := range list {
		ranges, e := v1alpha1.ParseOverrideOrdinals(fmt.Sprintf("spec.overrides[%s].ordinals", o.Name), o.Ordinals)
		if e != nil && err == nil {
			err = e
		}
		out[i] = Override{Spec: o}
		for _, r := range ranges {
			out[i].Ranges = append(out[i].Ranges, OrdinalRange{Low: r.Low, High: r.High})
		}
	}
	return out, err
}

// OverrideAt is the index of the override that lists ord, -1 when none
// does. Were two to list it (the schema refuses that), the first wins.
func OverrideAt(list []Override, ord int32) int {
	return slices.IndexFunc(list, func(o Override) bool { return o.Covers(ord) })
}

// revisionOverrides is one revision's overrides and the effective sets
// built from them, each once per plan.
type revisionOverrides struct {
	base *appsv1.StatefulSet
	list []Override
	sets map[int]*appsv1.StatefulSet
}

// at is the set with the effective template and claim templates of ord.
func (r *revisionOverrides) at(ord int32) *appsv1.StatefulSet {
	i := OverrideAt(r.list, ord)
	if i < 0 {
		return r.base
	}
	if s, ok := r.sets[i]; ok {
		return s
	}
	s := EffectiveSet(r.base, &r.list[i].Spec)
	if r.sets == nil {
		r.sets = map[int]*appsv1.StatefulSet{}
	}
	r.sets[i] = s
	return s
}

// readOverrides reads the overrides of the current and update revisions
// of an extended set; an apps/v1 set has none. A revision whose overrides
// cannot be read leaves the plan without steps, as a corrupt template
// does.
func (p *planner) readOverrides(cur, upd *appsv1.ControllerRevision) bool {
	if p.ext == nil {
		return true
	}
	p.overrides = map[string]*revisionOverrides{}
	for _, r := range []struct {
		rev  *appsv1.ControllerRevision
		base *appsv1.StatefulSet
	}{{upd, p.updateSet}, {cur, p.currentSet}} {
		if err := p.addOverrides(r.rev, r.base); err != nil {
			p.warn(ReasonInvalidRevision, "StatefulSet/"+p.set.Name, err.Error()+"; nothing is planned")
			return false
		}
	}
	p.checkOverrides()
	return p.overridesInSet()
}

// overridesInSet reports whether the update revision's overrides keep
// their pods inside the set's selector, matchLabels and matchExpressions
// alike, and warns about each that does not: such a pod would not be the
// set's, so the set would create it again and again under a name that is
// taken. The schema's rules refuse such overrides; a set stored before
// them still plans nothing until it changes.
func (p *planner) overridesInSet() bool {
	r := p.overrides[p.update]
	if r == nil || p.set.Spec.Selector == nil {
		return true
	}
	sel, err := metav1.LabelSelectorAsSelector(p.set.Spec.Selector)
	if err != nil {
		return true
	}
	in := true
	for _, o := range r.list {
		t := o.Spec.Template
		if t == nil || t.Metadata == nil || len(t.Metadata.Labels) == 0 {
			continue
		}
		if sel.Matches(labels.Set(mergeMap(r.base.Spec.Template.Labels, t.Metadata.Labels))) {
			continue
		}
		in = false
		p.warn(ReasonOverrideLeavesSet, "StatefulSet/"+p.set.Name, fmt.Sprintf(
			"override %s's labels %v take its pods out of spec.selector (%s): they would not be the set's; nothing is planned until the override changes",
			o.Spec.Name, labels.Set(t.Metadata.Labels), sel))
	}
	return in
}

func (p *planner) addOverrides(rev *appsv1.ControllerRevision, base *appsv1.StatefulSet) error {
	if _, ok := p.overrides[rev.Name]; ok {
		return nil
	}
	held, err := revision.Overrides(rev)
	if err != nil {
		return err
	}
	list, _ := ReadOverrides(held)
	p.overrides[rev.Name] = &revisionOverrides{base: base, list: list}
	return nil
}

// hasOverrides reports whether the current or update revision has any
// override: only then can two revisions give a pod equal templates, and
// only then do the passes look for pods to move (movePass).
func (p *planner) hasOverrides() bool {
	for _, r := range p.overrides {
		if len(r.list) > 0 {
			return true
		}
	}
	return false
}

// setAt is the set whose template and claim templates are ordinal ord's
// effective ones at revision name: the update or current revision, or
// another of the set's revisions. Nil when the revision is not known.
func (p *planner) setAt(name string, ord int32) *appsv1.StatefulSet {
	if r, ok := p.overrides[name]; ok {
		return r.at(ord)
	}
	switch {
	case name == p.update:
		return p.updateSet
	case name == p.current:
		return p.currentSet
	case p.ext == nil:
		return nil
	}
	for _, rev := range p.in.Observed.Revisions {
		if rev.Name != name {
			continue
		}
		base, err := p.apply(rev)
		if err != nil || p.addOverrides(rev, base) != nil {
			return nil
		}
		return p.overrides[name].at(ord)
	}
	return nil
}

// templateAt is ordinal ord's effective template at revision name, nil
// when the revision is not known.
func (p *planner) templateAt(name string, ord int32) *corev1.PodTemplateSpec {
	if s := p.setAt(name, ord); s != nil {
		return &s.Spec.Template
	}
	return nil
}

// groupKey names the overrides that make ordinal ord's templates at
// revision name and at the update revision, so that what depends only on
// those two templates is worked out once per group, not once per pod.
func (p *planner) groupKey(name string, ord int32) string {
	from, to := -1, -1
	if r, ok := p.overrides[name]; ok {
		from = OverrideAt(r.list, ord)
	}
	if r, ok := p.overrides[p.update]; ok {
		to = OverrideAt(r.list, ord)
	}
	return fmt.Sprintf("%s/%d/%d", name, from, to)
}

// claimTemplatesAt is the claim templates ordinal ord's claims are made
// from: the set's, with the update revision's override of ord applied.
func (p *planner) claimTemplatesAt(ord int32) []corev1.PersistentVolumeClaim {
	r, ok := p.overrides[p.update]
	if !ok {
		return p.set.Spec.VolumeClaimTemplates
	}
	i := OverrideAt(r.list, ord)
	if i < 0 || len(r.list[i].Spec.VolumeClaimTemplates) == 0 {
		return p.set.Spec.VolumeClaimTemplates
	}
	return EffectiveClaims(p.set.Spec.VolumeClaimTemplates, r.list[i].Spec.VolumeClaimTemplates)
}

// unchanged reports whether the pod in s can move to the update revision
// by its label alone: its revision is known, and its ordinal's effective
// template there is the one at the update revision.
func (p *planner) unchanged(s slot) bool {
	rev := podRevision(s.pod)
	if rev == p.update {
		return false
	}
	key := p.groupKey(rev, s.ordinal)
	if same, ok := p.same[key]; ok {
		return same
	}
	from, to := p.templateAt(rev, s.ordinal), p.templateAt(p.update, s.ordinal)
	same := from != nil && to != nil && apiequality.Semantic.DeepEqual(from, to)
	if p.same == nil {
		p.same = map[string]bool{}
	}
	p.same[key] = same
	return same
}

// movePass moves to the update revision, by their label alone, the pods of
// an extended set with overrides whose effective template the update does
// not change (docs/overrides.md): a change of one override rolls only its
// pods. A move disturbs nothing, so it takes no maxUnavailable slot, calls
// no hook and waits for no other pod. Under RollingUpdate it moves the
// pods the update may reach (at or above the partition, not while
// paused); under OnDelete and Recreate every pod. A set whose claims
// follow their templates moves its pods in its own update, once their
// claims are done (claimsExecutor.step).
func (p *planner) movePass() {
	if p.ext == nil || !p.hasOverrides() || p.claimsInPlace() || p.unordered || p.paused() {
		return
	}
	rolling := p.set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && !p.ext.Recreate
	var actions []Action
	for _, s := range p.replicas {
		if !isCreated(s.pod) || isTerminating(s.pod) || p.deleted[s.ordinal] || p.changed[s.ordinal] ||
			(rolling && !p.abovePartition(s.ordinal)) || !p.unchanged(s) {
			continue
		}
		p.touched(s)
		actions = append(actions, p.movePod(s))
	}
	p.addStep(StepRollingUpdate, actions)
}

// movePod writes the update revision's label on the pod in s.
func (p *planner) movePod(s slot) Action {
	moved := s.pod.DeepCopy()
	moved.Labels[appsv1.StatefulSetRevisionLabel] = p.update
	return Action{Kind: UpdatePod, Ordinal: s.ordinal, Pod: moved, EventReason: EventSuccessfulUpdate, FailEvent: EventFailedUpdate,
		Reason: fmt.Sprintf("overrides: the effective template of %s is the same at revision %s, so it moves from %s without a restart",
			s.pod.Name, p.update, podRevision(s.pod))}
}

// checkOverrides warns about overrides of the update revision that name a
// container its template does not have.
func (p *planner) checkOverrides() {
	r := p.overrides[p.update]
	if r == nil {
		return
	}
	names := map[string]bool{}
	for _, c := range r.base.Spec.Template.Spec.Containers {
		names[c.Name] = true
	}
	for _, o := range r.list {
		if o.Spec.Template == nil || o.Spec.Template.Spec == nil {
			continue
		}
		for _, c := range o.Spec.Template.Spec.Containers {
			if !names[c.Name] {
				p.warn(ReasonOverrideUnknownContainer, "StatefulSet/"+p.set.Name, fmt.Sprintf(
					"override %s changes container %q, which spec.template does not have; that part of the override changes nothing", o.Spec.Name, c.Name))
			}
		}
	}
}

// overrideCounts is status.overrides: for each override of the update
// revision, how many of the set's ordinals it lists.
func (p *planner) overrideCounts() []OverrideCount {
	r := p.overrides[p.update]
	if r == nil || len(r.list) == 0 {
		return nil
	}
	out := make([]OverrideCount, len(r.list))
	for i, o := range r.list {
		out[i].Name = o.Spec.Name
		for _, run := range p.layout.Runs() {
			for _, want := range o.Ranges {
				lo, hi := max(run.Low, want.Low), min(run.High, want.High)
				if lo <= hi {
					out[i].Replicas += hi - lo + 1
				}
			}
		}
	}
	return out
}

// EffectiveSet is base with the template and claim templates that o makes
// of them; base itself is not changed.
func EffectiveSet(base *appsv1.StatefulSet, o *v1alpha1.OrdinalOverride) *appsv1.StatefulSet {
	out := *base
	out.Spec.Template = EffectiveTemplate(&base.Spec.Template, o.Template)
	out.Spec.VolumeClaimTemplates = EffectiveClaims(base.Spec.VolumeClaimTemplates, o.VolumeClaimTemplates)
	return &out
}

// EffectiveTemplate is base with o applied (docs/overrides.md), defaulted
// as the API server defaults a pod; base itself is not changed. A nil o
// gives a copy of base as it is.
func EffectiveTemplate(base *corev1.PodTemplateSpec, o *v1alpha1.OverrideTemplate) corev1.PodTemplateSpec {
	out := *base.DeepCopy()
	if o == nil {
		return out
	}
	if m := o.Metadata; m != nil {
		out.Labels = mergeMap(out.Labels, m.Labels)
		out.Annotations = mergeMap(out.Annotations, m.Annotations)
	}
	if s := o.Spec; s != nil {
		overridePodSpec(&out.Spec, s)
	}
	defaults.PodTemplate(&out)
	return out
}

func overridePodSpec(spec *corev1.PodSpec, o *v1alpha1.OverridePodSpec) {
	for _, c := range o.Containers {
		if i := slices.IndexFunc(spec.Containers, func(t corev1.Container) bool { return t.Name == c.Name }); i >= 0 {
			overrideContainer(&spec.Containers[i], &c)
		}
	}
	spec.NodeSelector = mergeMap(spec.NodeSelector, o.NodeSelector)
	if o.Affinity != nil {
		spec.Affinity = o.Affinity.DeepCopy()
	}
	for _, t := range o.Tolerations {
		if !slices.ContainsFunc(spec.Tolerations, func(have corev1.Toleration) bool { return apiequality.Semantic.DeepEqual(have, t) }) {
			spec.Tolerations = append(spec.Tolerations, *t.DeepCopy())
		}
	}
	if o.TopologySpreadConstraints != nil {
		spec.TopologySpreadConstraints = nil
		for _, c := range o.TopologySpreadConstraints {
			spec.TopologySpreadConstraints = append(spec.TopologySpreadConstraints, *c.DeepCopy())
		}
	}
	if o.PriorityClassName != "" {
		spec.PriorityClassName = o.PriorityClassName
	}
}

func overrideContainer(c *corev1.Container, o *v1alpha1.ContainerOverride) {
	if o.Image != "" {
		c.Image = o.Image
	}
	if o.Args != nil {
		c.Args = slices.Clone(o.Args)
	}
	for _, e := range o.Env {
		if i := slices.IndexFunc(c.Env, func(have corev1.EnvVar) bool { return have.Name == e.Name }); i >= 0 {
			c.Env[i] = *e.DeepCopy()
		} else {
			c.Env = append(c.Env, *e.DeepCopy())
		}
	}
	if r := o.Resources; r != nil {
		c.Resources.Requests = mergeResources(c.Resources.Requests, r.Requests)
		c.Resources.Limits = mergeResources(c.Resources.Limits, r.Limits)
		if r.Claims != nil {
			c.Resources.Claims = slices.Clone(r.Claims)
		}
	}
}

// EffectiveClaims is base with the claim overrides applied; base itself is
// not changed. A storage request only ever grows: the larger of the
// template's and the override's counts.
func EffectiveClaims(base []corev1.PersistentVolumeClaim, list []v1alpha1.VolumeClaimOverride) []corev1.PersistentVolumeClaim {
	if len(list) == 0 {
		return base
	}
	out := make([]corev1.PersistentVolumeClaim, len(base))
	for i := range base {
		base[i].DeepCopyInto(&out[i])
		j := slices.IndexFunc(list, func(o v1alpha1.VolumeClaimOverride) bool { return o.Name == base[i].Name })
		if j < 0 {
			continue
		}
		o := list[j]
		if o.Storage != nil {
			have, ok := out[i].Spec.Resources.Requests[corev1.ResourceStorage]
			if !ok || o.Storage.Cmp(have) > 0 {
				out[i].Spec.Resources.Requests = mergeResources(out[i].Spec.Resources.Requests, corev1.ResourceList{corev1.ResourceStorage: *o.Storage})
			}
		}
		if o.StorageClassName != nil {
			out[i].Spec.StorageClassName = ptrTo(*o.StorageClassName)
		}
		if o.VolumeAttributesClassName != nil {
			out[i].Spec.VolumeAttributesClassName = ptrTo(*o.VolumeAttributesClassName)
		}
	}
	return out
}

func mergeMap(base, over map[string]string) map[string]string {
	if len(over) == 0 {
		return base
	}
	out := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

func mergeResources(base, over corev1.ResourceList) corev1.ResourceList {
	if len(over) == 0 {
		return base
	}
	out := make(corev1.ResourceList, len(base)+len(over))
	for k, v := range base {
		out[k] = v.DeepCopy()
	}
	for k, v := range over {
		out[k] = v.DeepCopy()
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }
