package invariant

import (
	"context"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// nodeSource lists and watches the cluster's nodes, keeping of each only
// its name and labels, and passing on a modification only when the labels
// changed: heartbeats change a node's status every few seconds, which no
// rule reads.
func nodeSource(client kubernetes.Interface) source {
	nodes := client.CoreV1().Nodes()
	list := func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		l, err := nodes.List(ctx, o)
		if err != nil {
			return nil, err
		}
		for i := range l.Items {
			l.Items[i] = *labelsOnly(&l.Items[i])
		}
		return l, nil
	}
	watchNodes := func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		w, err := nodes.Watch(ctx, o)
		if err != nil {
			return nil, err
		}
		seen := map[string]map[string]string{}
		return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
			n, ok := ev.Object.(*corev1.Node)
			if !ok {
				return ev, true // bookmarks and errors
			}
			if ev.Type == watch.Modified && maps.Equal(seen[n.Name], n.Labels) {
				return ev, false
			}
			seen[n.Name] = n.Labels
			ev.Object = labelsOnly(n)
			return ev, true
		}), nil
	}
	return source{KindNode, list, watchNodes}
}

func labelsOnly(n *corev1.Node) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion, Labels: n.Labels}}
}
