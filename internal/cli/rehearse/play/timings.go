package play

import (
	"context"
	"fmt"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/learn"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// The copy's pods get the learned timings when they are created, from a
// MutatingAdmissionPolicy: the set's template stays the source's, so its
// revisions are the source's, and yet each ordinal plays its own times.
const (
	// timingsPolicy names the policy and its binding.
	timingsPolicy = "ordinal-rehearsal-timings"
	// timingsParams names the ConfigMap in each copy's namespace that
	// holds POD.ready-delay and POD.stop-delay, and default.* for an
	// ordinal the source did not have.
	timingsParams = "rehearsal-timings"
	// copyLabel marks the copy's namespaces, which the binding selects.
	copyLabel = "rehearse.ordinal.dev/copy"
)

// timingExpression writes a pod's two timing annotations from the
// namespace's ConfigMap: its own keys, or the defaults.
var timingExpression = fmt.Sprintf(`Object{metadata: Object.metadata{annotations: {
  %q: params.data[(object.metadata.name + ".ready-delay") in params.data ? object.metadata.name + ".ready-delay" : "default.ready-delay"],
  %q: params.data[(object.metadata.name + ".stop-delay") in params.data ? object.metadata.name + ".stop-delay" : "default.stop-delay"]
}}}`, nodes.AnnotationReadyDelay, nodes.AnnotationStopDelay)

// installTimings creates the policy and its binding.
func installTimings(ctx context.Context, c kubernetes.Interface) error {
	policy := &admissionv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: timingsPolicy},
		Spec: admissionv1.MutatingAdmissionPolicySpec{
			ParamKind: &admissionv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				},
			}}},
			FailurePolicy:      ptr.To(admissionv1.Fail),
			ReinvocationPolicy: admissionv1.NeverReinvocationPolicy,
			Mutations: []admissionv1.Mutation{{
				PatchType:          admissionv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionv1.ApplyConfiguration{Expression: timingExpression},
			}},
		},
	}
	binding := &admissionv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: timingsPolicy},
		Spec: admissionv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName: timingsPolicy,
			ParamRef:   &admissionv1.ParamRef{Name: timingsParams, ParameterNotFoundAction: ptr.To(admissionv1.AllowAction)},
			MatchResources: &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{copyLabel: "true"},
			}},
		},
	}
	if _, err := c.AdmissionregistrationV1().MutatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("installing the timings' admission policy: %w", err)
	}
	if _, err := c.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("binding the timings' admission policy: %w", err)
	}
	return nil
}

// timingsData is the ConfigMap's data: each learned pod's delays and the
// defaults, as durations the simulated nodes read.
func timingsData(t learn.Timings) map[string]string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%dms", d.Milliseconds()) }
	out := map[string]string{}
	put := func(prefix, pod string) {
		ready, stop := t.For(pod)
		out[prefix+".ready-delay"], out[prefix+".stop-delay"] = ms(ready), ms(stop)
	}
	for _, p := range t.Pods {
		put(p.Name, p.Name)
	}
	put("default", "")
	return out
}

// awaitTimings creates the namespace's ConfigMap and waits until the
// policy gives a pod of the set its timings (the policy and its params
// reach the admission plugin through informers): a dry-run create of the
// set's first pod must come back annotated.
func awaitTimings(ctx context.Context, c kubernetes.Interface, ns, pod string, t learn.Timings) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: timingsParams}, Data: timingsData(t)}
	if _, err := c.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("storing the learned timings: %w", err)
	}
	want, _ := t.For(pod)
	probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: pod}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "probe", Image: "probe"}}}}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := c.CoreV1().Pods(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false, nil
		}
		return got.Annotations[nodes.AnnotationReadyDelay] == fmt.Sprintf("%dms", want.Milliseconds()), nil
	})
	if err != nil {
		return fmt.Errorf("the timings' admission policy did not take effect in %s: %w", ns, err)
	}
	return nil
}
