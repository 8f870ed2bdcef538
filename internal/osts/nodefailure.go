package osts

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// DefaultNodeLossQuarantine is how long a host must have been lost, without
// a break, before volumes: Recreate gives its claims up, unless the
// controller is told otherwise (--node-loss-quarantine). Upstream's pod
// garbage collector waits 40s before it deletes the pods of a node that is
// gone and checks again; a claim holds data, so the controller waits
// longer: as long as the pods' default toleration of an unreachable node
// (300s), enough for a node deleted in maintenance to register again
// after a reboot.
const DefaultNodeLossQuarantine = 5 * time.Minute

// MinNodeLossQuarantine is the shortest quarantine a controller accepts:
// upstream's pod garbage collector's.
const MinNodeLossQuarantine = 40 * time.Second

// NodeFailure is the planner's node-failure input from the set's policy;
// every extended set has one, so that a pod on a lost node is named even
// without a policy. The controller adds what it knows of the nodes
// (JudgeNodes), the quarantine and its permission to delete claims.
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

// NodeReader is what JudgeNodes reads of the cluster, and of its reader's
// memory of earlier reads.
type NodeReader interface {
	// Node is the node called name, nil when it is gone.
	Node(name string) *corev1.Node
	// Volume is the persistent volume called name, nil when unknown.
	Volume(name string) *corev1.PersistentVolume
	// Host returns the nodes whose kubernetes.io/hostname label is host;
	// false when that is not known, and the host is then not judged.
	Host(host string) ([]*corev1.Node, bool)
	// LostSince is when host was first seen lost as loss (on nodes), the
	// start of an unbroken run of such reads ending with this one.
	LostSince(host string, loss planner.HostLoss, nodes []*corev1.Node) time.Time
	// UnknownSince is when node, whose Ready condition is Unknown without
	// a lastTransitionTime, was first seen so; zero when not known.
	UnknownSince(node *corev1.Node) time.Time
}

// JudgeNodes judges the nodes of a set with node-failure policy nf from
// its pods and claims: the nodes its pods run on, by name, and the hosts
// its claims' bound local volumes are pinned to, by label. It returns nil
// for a set without a policy, which judges none.
func JudgeNodes(nf *planner.NodeFailure, pods []*corev1.Pod, claims map[string]*corev1.PersistentVolumeClaim, r NodeReader) *planner.NodeFacts {
	if nf == nil {
		return nil
	}
	out := &planner.NodeFacts{Nodes: map[string]planner.NodeState{}, ClaimHosts: map[string]string{}, Hosts: map[string]planner.HostState{}}
	judgePods(out, pods, r)
	judgeClaims(out, claims, r)
	return out
}

// judgePods judges the nodes the pods run on.
func judgePods(nf *planner.NodeFacts, pods []*corev1.Pod, r NodeReader) {
	for _, p := range pods {
		if name := p.Spec.NodeName; name != "" {
			if n := r.Node(name); n != nil {
				nf.Nodes[name] = NodeState(n, r.UnknownSince(n))
			}
		}
	}
}

// judgeClaims judges the hosts the claims' bound local volumes are pinned
// to.
func judgeClaims(nf *planner.NodeFacts, claims map[string]*corev1.PersistentVolumeClaim, r NodeReader) {
	for name, claim := range claims {
		if claim.Spec.VolumeName == "" {
			continue
		}
		pv := r.Volume(claim.Spec.VolumeName)
		if pv == nil || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != claim.UID {
			continue
		}
		if host := PinnedHost(pv); host != "" {
			nf.ClaimHosts[name] = host
		}
	}
	for _, host := range nf.ClaimHosts {
		if _, done := nf.Hosts[host]; done {
			continue
		}
		if nodes, ok := r.Host(host); ok {
			nf.Hosts[host] = hostState(host, nodes, r)
		}
	}
}

// hostState judges host from the nodes carrying its label.
func hostState(host string, nodes []*corev1.Node, r NodeReader) planner.HostState {
	st := planner.HostState{Loss: HostLoss(nodes)}
	for _, n := range nodes {
		st.Nodes = append(st.Nodes, n.Name)
	}
	slices.Sort(st.Nodes)
	if st.Loss != "" {
		st.Since = r.LostSince(host, st.Loss, nodes)
	}
	return st
}

// HostLoss judges a host by the nodes carrying its label: gone when there
// are none, fenced when every one is NotReady and out of service (two
// independent signals), not lost otherwise.
func HostLoss(nodes []*corev1.Node) planner.HostLoss {
	if len(nodes) == 0 {
		return planner.HostGone
	}
	for _, n := range nodes {
		if st := NodeState(n, time.Time{}); st.Ready == corev1.ConditionTrue || !st.OutOfService {
			return ""
		}
	}
	return planner.HostFenced
}

// NodeState is what the planner judges of a node: its Ready condition
// and the out-of-service taint. unknownSince stands for a Ready Unknown
// condition's missing lastTransitionTime.
func NodeState(node *corev1.Node, unknownSince time.Time) planner.NodeState {
	st := planner.NodeState{UID: node.UID}
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			st.Ready, st.Since = cond.Status, cond.LastTransitionTime.Time
		}
	}
	if st.Ready == corev1.ConditionUnknown && st.Since.IsZero() {
		st.Since = unknownSince
	}
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeOutOfService {
			st.OutOfService = true
		}
	}
	st.Drain = DrainOf(node)
	return st
}

// drainTaints are the taints that announce a drain, with the word a plan
// says it with: the node lifecycle controller's mirror of a cordon, the
// cluster autoscaler's before it deletes a node, Karpenter's before it
// disrupts one.
var drainTaints = []struct{ key, why string }{
	{corev1.TaintNodeUnschedulable, "cordoned"},
	{"ToBeDeletedByClusterAutoscaler", "tainted ToBeDeletedByClusterAutoscaler"},
	{"karpenter.sh/disrupted", "tainted karpenter.sh/disrupted"},
}

// DrainOf says why node is being drained: "cordoned" (spec.unschedulable
// or its taint), or the drain taint it carries; "" when it is not.
func DrainOf(node *corev1.Node) string {
	if node.Spec.Unschedulable {
		return "cordoned"
	}
	for _, d := range drainTaints {
		for _, t := range node.Spec.Taints {
			if t.Key == d.key && (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) {
				return d.why
			}
		}
	}
	return ""
}

// PinnedHost is the one host pv can be used on, or "": the value of
// kubernetes.io/hostname that a volume's required node affinity names, a
// single term with one value, which local volume provisioners write. It
// is a label value, not a node name.
func PinnedHost(pv *corev1.PersistentVolume) string {
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
