package setops

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// topologyNodes lists the cluster's nodes for an extended set whose
// rolling update goes by topology domains; nil for other sets, or when
// they cannot be listed (a user allowed only into a namespace).
func topologyNodes(ctx context.Context, t *Target) []*corev1.Node {
	if t.Extended == nil || t.Extended.Spec.UpdateStrategy.RollingUpdate == nil || t.Extended.Spec.UpdateStrategy.RollingUpdate.Topology == nil {
		return nil
	}
	list, err := t.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	out := make([]*corev1.Node, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}
