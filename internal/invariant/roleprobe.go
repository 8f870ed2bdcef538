package invariant

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// probeEntry is the role probe's managedFields entry of pod, or nil.
func probeEntry(pod *corev1.Pod) *metav1.ManagedFieldsEntry {
	if pod == nil {
		return nil
	}
	for i := range pod.ManagedFields {
		if pod.ManagedFields[i].Manager == v1alpha1.RoleProbeFieldManager {
			return &pod.ManagedFields[i]
		}
	}
	return nil
}

// judgeRoleProbeWrite checks RuleRoleProbeWrite on a pod version whose
// role probe entry in managedFields differs from prev's: a write of the
// field manager committed between them.
func (r *replay) judgeRoleProbeWrite(ev Event, st *setTrack, prev, pod *corev1.Pod) {
	before, after := probeEntry(prev), probeEntry(pod)
	if before == nil && after == nil || before != nil && after != nil && reflect.DeepEqual(before, after) {
		return
	}
	allowed := map[string]bool{"f:metadata.f:annotations.f:" + v1alpha1.RoleProbeAnnotation: true}
	probed := false
	if st != nil {
		for _, v := range r.specsWithin(st, ev.Time) {
			if x := st.extOf(v); x != nil && x.Spec.Roles != nil && x.Spec.Roles.RoleProbe != nil {
				probed = true
				allowed["f:metadata.f:labels.f:"+x.Spec.Roles.LabelKey] = true
			}
		}
	}
	k := key(pod.Namespace, pod.Name)
	if !probed {
		r.violate(RuleRoleProbeWrite, k, ev, "%s wrote pod %s while no version of its set within the window has spec.roles.roleProbe", v1alpha1.RoleProbeFieldManager, pod.Name)
		return
	}
	if after == nil || after.FieldsV1 == nil {
		return
	}
	var fields map[string]any
	if err := json.Unmarshal(after.FieldsV1.GetRawBytes(), &fields); err != nil {
		r.violate(RuleRoleProbeWrite, k, ev, "%s's fields of pod %s are not readable: %v", v1alpha1.RoleProbeFieldManager, pod.Name, err)
		return
	}
	var others []string
	for _, path := range leafPaths("", fields) {
		if !allowed[path] {
			others = append(others, path)
		}
	}
	if len(others) > 0 {
		sort.Strings(others)
		r.violate(RuleRoleProbeWrite, k, ev, "%s owns %s of pod %s: only the role label and the %s annotation are its", v1alpha1.RoleProbeFieldManager,
			strings.Join(others, ", "), pod.Name, v1alpha1.RoleProbeAnnotation)
	}
}

// leafPaths lists the owned fields of a FieldsV1 set as dotted paths,
// "f:metadata.f:labels.f:role". A field owned with its children ("."
// key) counts as a leaf too.
func leafPaths(prefix string, fields map[string]any) []string {
	var out []string
	for name, sub := range fields {
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		if name == "." {
			out = append(out, prefix)
			continue
		}
		child, _ := sub.(map[string]any)
		if len(child) == 0 {
			out = append(out, path)
			continue
		}
		out = append(out, leafPaths(path, child)...)
	}
	return out
}
