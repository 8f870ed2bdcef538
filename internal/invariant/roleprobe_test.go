package invariant

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// extProbed gives the set spec.roles (extRoles) and, when probe, a role
// probe.
func extProbed(probe bool) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		extRoles(false)(s)
		if probe {
			s.Spec.Roles.RoleProbe = &v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: 8080}}
		}
	}
}

// probeWrote labels the pod role=value as the role probe's field manager,
// owning fields (FieldsV1 JSON) and writing at second sec.
func probeWrote(value, fields string, sec int) podOpt {
	return func(p *corev1.Pod) {
		p.Labels["role"] = value
		p.ManagedFields = append(p.ManagedFields, metav1.ManagedFieldsEntry{Manager: v1alpha1.RoleProbeFieldManager, Operation: metav1.ManagedFieldsOperationUpdate,
			Time: &metav1.Time{Time: t0.Add(secs(sec))}, FieldsV1: metav1.NewFieldsV1(fields)})
	}
}

const roleField = `{"f:metadata":{"f:labels":{"f:role":{}}}}`

// probeCases judge RuleRoleProbeWrite; TestExtendedRules runs them.
var probeCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name: "the role probe labels a pod of a set with a probe",
	history: func() *history {
		h := &history{}
		h.add(0, added, mkExt(1, extProbed(true)))
		h.add(0.1, added, mkPod(0, "a", ready))
		return h.add(2, modified, mkPod(0, "a", ready, probeWrote("leader", roleField, 2)))
	},
}, {
	name: "the role probe's manager labels a pod of a set without a probe",
	history: func() *history {
		h := &history{}
		h.add(0, added, mkExt(1, extProbed(false)))
		h.add(0.1, added, mkPod(0, "a", ready))
		return h.add(2, modified, mkPod(0, "a", ready, probeWrote("leader", roleField, 2)))
	},
	want: []Rule{RuleRoleProbeWrite},
}, {
	name: "the role probe's manager writes another label",
	history: func() *history {
		h := &history{}
		h.add(0, added, mkExt(1, extProbed(true)))
		h.add(0.1, added, mkPod(0, "a", ready))
		return h.add(2, modified, mkPod(0, "a", ready, probeWrote("leader", `{"f:metadata":{"f:labels":{"f:role":{},"f:app":{}},"f:annotations":{"f:apps.ordinal.dev/role-probe":{}}}}`, 2)))
	},
	want: []Rule{RuleRoleProbeWrite},
}, {
	name: "an entry written before the probe was removed is no new write",
	history: func() *history {
		h := &history{}
		h.add(0, added, mkExt(1, extProbed(true)))
		h.add(0.1, added, mkPod(0, "a", ready, probeWrote("leader", roleField, 0)))
		h.add(60, modified, mkExt(1, gen(2), extProbed(false)))
		return h.add(120, modified, mkPod(0, "a", probeWrote("leader", roleField, 0)))
	},
}}
