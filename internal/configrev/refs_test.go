package configrev

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func optional() *bool { t := true; return &t }

// everyReference is a template that reads ConfigMaps and Secrets in
// every way a pod can.
func everyReference() *corev1.PodTemplateSpec {
	cmSel := func(name string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: name} }
	return &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: cmSel("vol")}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tls"}}},
			{Name: "c", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: cmSel("projected")}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: cmSel("password")}},
			}}}},
			{Name: "d", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
		InitContainers: []corev1.Container{{Name: "init", EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: cmSel("init-env")}}}}},
		Containers: []corev1.Container{{
			Name:    "app",
			EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: cmSel("env-secret")}}, {ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: cmSel("vol")}}},
			Env: []corev1.EnvVar{
				{Name: "X", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: cmSel("key"), Key: "x", Optional: optional()}}},
				{Name: "Y", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: cmSel("password"), Key: "y"}}},
				{Name: "Z", Value: "plain"},
			},
		}},
	}}
}

func TestRefs(t *testing.T) {
	cases := []struct {
		name string
		spec *v1alpha1.ConfigRevisions
		want []Ref
	}{
		{"no spec reads nothing", nil, nil},
		{"every referenced ConfigMap, once, and no Secret unless named", &v1alpha1.ConfigRevisions{}, []Ref{
			{Kind: ConfigMap, Name: "init-env"}, {Kind: ConfigMap, Name: "key", Optional: true}, {Kind: ConfigMap, Name: "projected"}, {Kind: ConfigMap, Name: "vol"},
		}},
		{"listed ConfigMaps alone, and the Secrets named", &v1alpha1.ConfigRevisions{ConfigMaps: v1alpha1.ConfigMapsListed, ConfigMapNames: []string{"vol", "absent"}, Secrets: []string{"password", "tls"}}, []Ref{
			{Kind: ConfigMap, Name: "vol"}, {Kind: Secret, Name: "password"}, {Kind: Secret, Name: "tls"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, Refs(everyReference(), c.spec)); diff != "" {
				t.Errorf("refs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnObjectIsOptionalOnlyWhenEveryReferenceIs(t *testing.T) {
	tpl := everyReference()
	tpl.Spec.Containers[0].EnvFrom = append(tpl.Spec.Containers[0].EnvFrom, corev1.EnvFromSource{
		ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "key"}}})
	for _, r := range Refs(tpl, &v1alpha1.ConfigRevisions{}) {
		if r.Name == "key" && r.Optional {
			t.Errorf("key is read by an optional and a required reference, and is optional")
		}
	}
}

func TestRewritePointsEveryReferenceAtItsCopy(t *testing.T) {
	in := everyReference()
	before := in.DeepCopy()
	out := Rewrite(in, map[Ref]string{{Kind: ConfigMap, Name: "vol"}: "vol-1", {Kind: Secret, Name: "password"}: "password-2", {Kind: ConfigMap, Name: "password"}: "wrong-kind"})
	if diff := cmp.Diff(before, in); diff != "" {
		t.Fatalf("Rewrite changed its input:\n%s", diff)
	}
	got := map[string]int{}
	visit(&out.Spec, func(kind Kind, name *string, _ *bool) { got[string(kind)+"/"+*name]++ })
	want := map[string]int{
		"ConfigMap/vol-1": 2, "Secret/password-2": 2, "Secret/tls": 1, "ConfigMap/projected": 1,
		"ConfigMap/init-env": 1, "ConfigMap/key": 1, "Secret/env-secret": 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("references after rewrite (-want +got):\n%s", diff)
	}
}
