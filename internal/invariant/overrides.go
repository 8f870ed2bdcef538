package invariant

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Rules of per-ordinal overrides (docs/overrides.md).
const (
	// RuleOverrideTemplate (extended kind, a revision that holds
	// overrides): a pod created at such a revision, or moved to it (its
	// revision label changed, same UID), runs its ordinal's effective
	// template there: each container of the effective template has its
	// image, args, env and the requests and limits the template names;
	// the pod has the template's labels and annotations, its nodeSelector
	// entries and tolerations, its affinity, topologySpreadConstraints and
	// priorityClassName.
	RuleOverrideTemplate Rule = "override-template"
	// RuleOverrideUnchangedDelete (extended kind): the controller never
	// deletes an unfinished in-range pod, not labelled for deletion, at a
	// revision R other than the update revision U every version of the
	// window agrees on, when R or U holds overrides and the pod's
	// ordinal's effective template at R equals the one at U: such a pod
	// moves to U by its label.
	RuleOverrideUnchangedDelete Rule = "override-unchanged-delete"
)

// revisionData is what the checker reads of a revision of an extended
// set: its template and its overrides.
type revisionData struct {
	Spec struct {
		Template  corev1.PodTemplateSpec     `json:"template"`
		Overrides []v1alpha1.OrdinalOverride `json:"overrides"`
	} `json:"spec"`
}

// revisionTemplates reads the revision named name in namespace ns; ok is
// false when the checker has not seen it or cannot read it.
func (r *replay) revisionTemplates(ns, name string) (revisionData, bool) {
	var d revisionData
	rev := r.revs[key(ns, name)]
	if rev == nil || json.Unmarshal(rev.Data.Raw, &d) != nil {
		return d, false
	}
	return d, true
}

// effectiveAt is, by the checker's own reading of docs/overrides.md, the
// template of ordinal ord at revision d.
func effectiveAt(d revisionData, ord int32) corev1.PodTemplateSpec {
	t := *d.Spec.Template.DeepCopy()
	for _, o := range d.Spec.Overrides {
		if listsOrdinal(o.Ordinals, ord) {
			applyOverride(&t, o.Template)
			break
		}
	}
	return t
}

// listsOrdinal reads entries as integers or "low-high" ranges.
func listsOrdinal(entries []intstr.IntOrString, ord int32) bool {
	for _, e := range entries {
		low, high, ok := rangeBounds(e.String())
		if ok && low <= int64(ord) && int64(ord) <= high {
			return true
		}
	}
	return false
}

func rangeBounds(s string) (low, high int64, ok bool) {
	a, b, isRange := strings.Cut(s, "-")
	if !isRange {
		b = a
	}
	l, errL := strconv.ParseInt(a, 10, 64)
	h, errH := strconv.ParseInt(b, 10, 64)
	return l, h, errL == nil && errH == nil
}

func applyOverride(t *corev1.PodTemplateSpec, o *v1alpha1.OverrideTemplate) {
	if o == nil {
		return
	}
	if m := o.Metadata; m != nil {
		t.Labels = withEntries(t.Labels, m.Labels)
		t.Annotations = withEntries(t.Annotations, m.Annotations)
	}
	s := o.Spec
	if s == nil {
		return
	}
	for _, c := range s.Containers {
		for i := range t.Spec.Containers {
			if t.Spec.Containers[i].Name == c.Name {
				applyContainer(&t.Spec.Containers[i], c)
			}
		}
	}
	t.Spec.NodeSelector = withEntries(t.Spec.NodeSelector, s.NodeSelector)
	if s.Affinity != nil {
		t.Spec.Affinity = s.Affinity
	}
	for _, tol := range s.Tolerations {
		if !slices.ContainsFunc(t.Spec.Tolerations, func(h corev1.Toleration) bool { return apiequality.Semantic.DeepEqual(h, tol) }) {
			t.Spec.Tolerations = append(t.Spec.Tolerations, tol)
		}
	}
	if s.TopologySpreadConstraints != nil {
		t.Spec.TopologySpreadConstraints = s.TopologySpreadConstraints
	}
	if s.PriorityClassName != "" {
		t.Spec.PriorityClassName = s.PriorityClassName
	}
}

func applyContainer(c *corev1.Container, o v1alpha1.ContainerOverride) {
	if o.Image != "" {
		c.Image = o.Image
	}
	if o.Args != nil {
		c.Args = o.Args
	}
	for _, e := range o.Env {
		if i := slices.IndexFunc(c.Env, func(h corev1.EnvVar) bool { return h.Name == e.Name }); i >= 0 {
			c.Env[i] = e
		} else {
			c.Env = append(c.Env, e)
		}
	}
	if r := o.Resources; r != nil {
		c.Resources.Requests = withQuantities(c.Resources.Requests, r.Requests)
		c.Resources.Limits = withQuantities(c.Resources.Limits, r.Limits)
	}
}

func withEntries(base, more map[string]string) map[string]string {
	if len(more) == 0 {
		return base
	}
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

func withQuantities(base, more corev1.ResourceList) corev1.ResourceList {
	if len(more) == 0 {
		return base
	}
	out := corev1.ResourceList{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// runsTemplate says how pod differs from template t, "" when it runs it.
func runsTemplate(pod *corev1.Pod, t corev1.PodTemplateSpec) string {
	for _, want := range t.Spec.Containers {
		i := slices.IndexFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Name == want.Name })
		if i < 0 {
			return "container " + want.Name + " is missing"
		}
		if why := runsContainer(pod.Spec.Containers[i], want); why != "" {
			return "container " + want.Name + ": " + why
		}
	}
	for what, pair := range map[string][2]map[string]string{
		"label": {pod.Labels, t.Labels}, "annotation": {pod.Annotations, t.Annotations}, "nodeSelector": {pod.Spec.NodeSelector, t.Spec.NodeSelector},
	} {
		for k, v := range pair[1] {
			if pair[0][k] != v {
				return what + " " + k + " is " + strconv.Quote(pair[0][k]) + ", want " + strconv.Quote(v)
			}
		}
	}
	for _, tol := range t.Spec.Tolerations {
		if !slices.ContainsFunc(pod.Spec.Tolerations, func(h corev1.Toleration) bool { return apiequality.Semantic.DeepEqual(h, tol) }) {
			return "toleration " + tol.Key + " is missing"
		}
	}
	switch {
	case !apiequality.Semantic.DeepEqual(pod.Spec.Affinity, t.Spec.Affinity):
		return "affinity differs"
	case !apiequality.Semantic.DeepEqual(pod.Spec.TopologySpreadConstraints, t.Spec.TopologySpreadConstraints):
		return "topologySpreadConstraints differ"
	case pod.Spec.PriorityClassName != t.Spec.PriorityClassName:
		return "priorityClassName " + strconv.Quote(pod.Spec.PriorityClassName) + ", want " + strconv.Quote(t.Spec.PriorityClassName)
	}
	return ""
}

func runsContainer(c, want corev1.Container) string {
	switch {
	case c.Image != want.Image:
		return "image " + c.Image + ", want " + want.Image
	case !slices.Equal(c.Args, want.Args):
		return "args " + strings.Join(c.Args, " ") + ", want " + strings.Join(want.Args, " ")
	case !apiequality.Semantic.DeepEqual(c.Env, want.Env) && (len(c.Env) != 0 || len(want.Env) != 0):
		return "env differs"
	}
	for what, pair := range map[string][2]corev1.ResourceList{"request": {c.Resources.Requests, want.Resources.Requests}, "limit": {c.Resources.Limits, want.Resources.Limits}} {
		for name, q := range pair[1] {
			if have, ok := pair[0][name]; !ok || have.Cmp(q) != 0 {
				return what + " " + string(name) + " " + have.String() + ", want " + q.String()
			}
		}
	}
	return ""
}

// judgeOverrideTemplate checks RuleOverrideTemplate on a pod version that
// is new (prev nil) or whose revision label changed.
func (r *replay) judgeOverrideTemplate(ev Event, st *setTrack, ord int32, prev, pod *corev1.Pod) {
	rev := pod.Labels[RevisionLabel]
	if !st.extended() || rev == "" || (prev != nil && prev.Labels[RevisionLabel] == rev) {
		return
	}
	d, ok := r.revisionTemplates(pod.Namespace, rev)
	if !ok || len(d.Spec.Overrides) == 0 {
		return
	}
	if why := runsTemplate(pod, effectiveAt(d, ord)); why != "" {
		r.violate(RuleOverrideTemplate, key(pod.Namespace, pod.Name), ev, "pod %s at revision %s does not run its ordinal's effective template: %s", pod.Name, rev, why)
	}
}

// judgeOverrideDelete checks RuleOverrideUnchangedDelete; it reports
// whether the rule broke.
func (r *replay) judgeOverrideDelete(ev Event, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) bool {
	upd, ok := updateRevisionWithin(specs)
	rev := pod.Labels[RevisionLabel]
	if !ok || rev == upd || r.notTheUpdates(ev, pod) {
		return false
	}
	from, okFrom := r.revisionTemplates(pod.Namespace, rev)
	to, okTo := r.revisionTemplates(pod.Namespace, upd)
	if !okFrom || !okTo || len(from.Spec.Overrides)+len(to.Spec.Overrides) == 0 {
		return false
	}
	if !apiequality.Semantic.DeepEqual(effectiveAt(from, ord), effectiveAt(to, ord)) {
		return false
	}
	r.violate(RuleOverrideUnchangedDelete, key(pod.Namespace, pod.Name), ev,
		"deleted %s at revision %s although its ordinal's effective template is the same at the update revision %s", pod.Name, rev, upd)
	return true
}
