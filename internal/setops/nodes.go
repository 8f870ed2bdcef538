package setops

import (
	"context"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeFacts are the nodes an extended set's pods run on and the volumes
// its claims are bound to, read once, so that `rollout plan` names a pod
// on a lost node as the controller does.
type NodeFacts struct {
	// Nodes by name; nil for a node that is gone. A node that could not
	// be read (no permission) is absent and judged Ready.
	Nodes   map[string]*corev1.Node
	Volumes map[string]*corev1.PersistentVolume
}

func (f *NodeFacts) node(name string) *corev1.Node {
	if n, ok := f.Nodes[name]; ok {
		return n
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
}

func (f *NodeFacts) volume(name string) *corev1.PersistentVolume { return f.Volumes[name] }

// nodeFacts reads, with one Get each, the nodes of o's pods and the
// volumes of its bound claims, then the nodes those volumes are pinned
// to.
func (extendedDoor) nodeFacts(ctx context.Context, t *Target, o Observed) *NodeFacts {
	f := &NodeFacts{Nodes: map[string]*corev1.Node{}, Volumes: map[string]*corev1.PersistentVolume{}}
	read := func(name string) {
		if _, done := f.Nodes[name]; done || name == "" {
			return
		}
		n, err := t.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		switch {
		case err == nil:
			f.Nodes[name] = n
		case apierrors.IsNotFound(err):
			f.Nodes[name] = nil
		}
	}
	for _, p := range o.Pods {
		read(p.Spec.NodeName)
	}
	for _, c := range o.Claims {
		if c.Spec.VolumeName == "" || !ofSet(o.Set, c.Name) {
			continue
		}
		pv, err := t.Client.CoreV1().PersistentVolumes().Get(ctx, c.Spec.VolumeName, metav1.GetOptions{})
		if err != nil {
			continue
		}
		f.Volumes[pv.Name] = pv
		for _, term := range nodeTerms(pv) {
			for _, e := range term.MatchExpressions {
				if e.Key == corev1.LabelHostname && len(e.Values) == 1 {
					read(e.Values[0])
				}
			}
		}
	}
	return f
}

// ofSet reports whether claim is named after one of set's claim templates.
func ofSet(set *appsv1.StatefulSet, claim string) bool {
	for _, t := range set.Spec.VolumeClaimTemplates {
		if strings.HasPrefix(claim, t.Name+"-"+set.Name+"-") {
			return true
		}
	}
	return false
}

func nodeTerms(pv *corev1.PersistentVolume) []corev1.NodeSelectorTerm {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return nil
	}
	return pv.Spec.NodeAffinity.Required.NodeSelectorTerms
}
