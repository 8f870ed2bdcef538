package doctor

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const checkGateName = "maxUnavailable gate"

// checkGate creates, in a server-side dry run that is never stored, a
// StatefulSet with spec.updateStrategy.rollingUpdate.maxUnavailable and
// looks whether the field survived: kube-apiserver drops it unless the
// MaxUnavailableStatefulSet feature gate is on. Off is a warning: sets
// then roll one pod at a time, as they always did. When Ordinal manages
// only the extended kind, off only informs: the gate is about apps/v1
// sets, which are the built-in controller's, and the extended kind's CRD
// keeps the field whatever the gate.
func (d *Doctor) checkGate(ctx context.Context, extendedOnly bool) Result {
	doing := "a dry-run create of a StatefulSet in namespace " + d.namespace
	got, err := d.client.AppsV1().StatefulSets(d.namespace).Create(ctx, gateProbe(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		r := couldNot(checkGateName, doing, err)
		r.Message += " (pass -n with a namespace where you may create StatefulSets)"
		return r
	}
	ru := got.Spec.UpdateStrategy.RollingUpdate
	if ru != nil && ru.MaxUnavailable != nil {
		return Result{Check: checkGateName, Status: OK, Message: "on: the API server keeps spec.updateStrategy.rollingUpdate.maxUnavailable"}
	}
	if extendedOnly {
		return Result{Check: checkGateName, Status: Info, Message: "off: the API server drops spec.updateStrategy.rollingUpdate.maxUnavailable " +
			"from apps/v1 StatefulSets, which the built-in controller runs here; " + extendedGroup + " StatefulSets keep it"}
	}
	return Result{Check: checkGateName, Status: Warn, Message: "off: the API server drops spec.updateStrategy.rollingUpdate.maxUnavailable, " +
		"so rolling updates replace one pod at a time; turn on kube-apiserver --feature-gates=MaxUnavailableStatefulSet=true to use it"}
}

// gateProbe is the smallest valid StatefulSet with maxUnavailable 2.
func gateProbe() *appsv1.StatefulSet {
	labels := map[string]string{"app.kubernetes.io/name": "ordinal-doctor-probe"}
	two := intstr.FromInt32(2)
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "ordinal-doctor-probe-", Labels: labels},
		Spec: appsv1.StatefulSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "probe", Image: "registry.k8s.io/pause:3.10"}}}},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &two}},
		},
	}
}
