package osts

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// NodeFailure is the planner's node-failure input from the set's policy;
// every extended set has one, so that a pod on a lost node is named even
// without a policy. The controller adds what it knows of the nodes
// (Nodes, ClaimNodes), or drops it when it cannot read nodes.
func NodeFailure(p *v1alpha1.NodeFailurePolicy) *planner.NodeFailure {
	nf := &planner.NodeFailure{Volumes: v1alpha1.KeepNodeFailureVolumes}
	if p == nil {
		return nf
	}
	if p.Volumes != "" {
		nf.Volumes = p.Volumes
	}
	if p.ReplaceAfterSeconds != nil && *p.ReplaceAfterSeconds >= 0 {
		nf.Replace, nf.ReplaceAfter = true, time.Duration(*p.ReplaceAfterSeconds)*time.Second
	}
	return nf
}

// JudgeNodes fills in nf's nodes from the set's pods and claims: node
// returns the node of a name, nil when it is gone; volume returns a bound
// volume by name, nil when unknown. A nil nf is left alone.
func JudgeNodes(nf *planner.NodeFailure, pods []*corev1.Pod, claims map[string]*corev1.PersistentVolumeClaim,
	node func(string) *corev1.Node, volume func(string) *corev1.PersistentVolume) {
	if nf == nil {
		return
	}
	nf.Nodes, nf.ClaimNodes = map[string]planner.NodeState{}, map[string]string{}
	names := map[string]bool{}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			names[p.Spec.NodeName] = true
		}
	}
	for name, claim := range claims {
		if claim.Spec.VolumeName == "" {
			continue
		}
		pv := volume(claim.Spec.VolumeName)
		if pv == nil || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != claim.UID {
			continue
		}
		if host := PinnedNode(pv); host != "" {
			nf.ClaimNodes[name] = host
			names[host] = true
		}
	}
	for name := range names {
		if n := node(name); n != nil {
			nf.Nodes[name] = NodeState(n)
		}
	}
}

// NodeState is what the planner judges of a node: its Ready condition and
// the out-of-service taint.
func NodeState(node *corev1.Node) planner.NodeState {
	var st planner.NodeState
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			st.Ready, st.Since = cond.Status == corev1.ConditionTrue, cond.LastTransitionTime.Time
		}
	}
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeOutOfService {
			st.OutOfService = true
		}
	}
	return st
}

// PinnedNode is the one node pv can be used on, or "": a volume whose
// required node affinity is a single term naming one
// kubernetes.io/hostname, which local volume provisioners write.
func PinnedNode(pv *corev1.PersistentVolume) string {
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil || len(na.Required.NodeSelectorTerms) != 1 {
		return ""
	}
	term := na.Required.NodeSelectorTerms[0]
	if len(term.MatchFields) != 0 || len(term.MatchExpressions) != 1 {
		return ""
	}
	e := term.MatchExpressions[0]
	if e.Key != corev1.LabelHostname || e.Operator != corev1.NodeSelectorOpIn || len(e.Values) != 1 {
		return ""
	}
	return e.Values[0]
}
