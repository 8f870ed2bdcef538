package integration

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The exact errors a user gets for invalid StatefulSets. They come from the
// API server's validation, before any controller sees the object, so they
// are the same with Ordinal as with the built-in controller.
func TestInvalidManifestsAreRejectedWithAClearError(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	zero := intstr.FromInt32(0)
	cases := []struct {
		name   string
		mutate func(*appsv1.StatefulSet)
		want   string
	}{
		{"a selector that does not match the template", func(s *appsv1.StatefulSet) {
			s.Spec.Template.Labels = map[string]string{"app": "other"}
		}, `StatefulSet.apps "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"other"}: ` + "`selector` does not match template `labels`"},
		{"restartPolicy Never", func(s *appsv1.StatefulSet) {
			s.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
		}, `StatefulSet.apps "web" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
		{"negative replicas", func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr(int32(-1)) }, `StatefulSet.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`},
		{"an unknown update strategy", func(s *appsv1.StatefulSet) {
			s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: "Fancy"}
		}, `StatefulSet.apps "web" is invalid: spec.updateStrategy: Invalid value: {"Type":"Fancy","RollingUpdate":null}: must be 'RollingUpdate' or 'OnDelete'`},
		{"maxUnavailable 0", func(s *appsv1.StatefulSet) {
			s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &zero}}
		}, `StatefulSet.apps "web" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0`},
		{"an empty selector", func(s *appsv1.StatefulSet) { s.Spec.Selector = &metav1.LabelSelector{} }, `StatefulSet.apps "web" is invalid: spec.selector: Invalid value: {}: empty selector is invalid for statefulset`},
	}
	for _, c := range cases {
		set := webSet(ns)
		c.mutate(set)
		_, err := client.AppsV1().StatefulSets(ns).Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%s:\n got: %s\nwant: %s", c.name, err, c.want)
		}
	}
}
