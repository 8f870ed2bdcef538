package setops

import (
	"context"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// NodeFacts are the nodes an extended set's pods run on, the volumes its
// claims are bound to and the nodes carrying the hostnames those volumes
// are pinned to, read once, so that `rollout plan` names a pod on a lost
// node, and a claim the policy would give up, as the controller does.
type NodeFacts struct {
	// Nodes by name; nil for a node that is gone. A node that could not
	// be read (no permission) is absent and judged Ready.
	Nodes   map[string]*corev1.Node
	Volumes map[string]*corev1.PersistentVolume
	// Hosts are the nodes carrying each hostname label; a host that could
	// not be listed is absent and not judged.
	Hosts map[string][]*corev1.Node
	// LostHosts are when the controller first saw each host lost, from
	// the set's status (the blockedBy entries of its claims); a host lost
	// now that the controller has not reported counts from now.
	LostHosts map[string]time.Time
	// QuarantineOver are the hosts whose quarantine the controller
	// reported over (a claim of theirs listed as not allowed, or being
	// recreated): a plan outside the controller does not know its
	// --node-loss-quarantine.
	QuarantineOver map[string]bool
	// Now is when the facts were read.
	Now time.Time
}

var _ osts.NodeReader = (*NodeFacts)(nil)

// Node is the node called name, nil when gone, a Ready one when unknown.
func (f *NodeFacts) Node(name string) *corev1.Node {
	if n, ok := f.Nodes[name]; ok {
		return n
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
}

// Volume is the volume called name, nil when unknown.
func (f *NodeFacts) Volume(name string) *corev1.PersistentVolume { return f.Volumes[name] }

// Host is the nodes carrying host's label, false when not listed.
func (f *NodeFacts) Host(host string) ([]*corev1.Node, bool) {
	nodes, ok := f.Hosts[host]
	return nodes, ok
}

// LostSince is when the controller reported host lost, else now.
func (f *NodeFacts) LostSince(host string, _ planner.HostLoss, _ []*corev1.Node) time.Time {
	if t, ok := f.LostHosts[host]; ok {
		return t
	}
	return f.Now
}

// UnknownSince is not known outside the controller, which counts from
// when it first saw the node so.
func (f *NodeFacts) UnknownSince(*corev1.Node) time.Time { return time.Time{} }

// nodeFacts reads, with one Get each, the nodes of o's pods and the
// volumes of its bound claims, then lists the nodes carrying the
// hostnames those volumes are pinned to.
func (extendedDoor) nodeFacts(ctx context.Context, t *Target, o Observed) *NodeFacts {
	f := &NodeFacts{Nodes: map[string]*corev1.Node{}, Volumes: map[string]*corev1.PersistentVolume{}, Hosts: map[string][]*corev1.Node{},
		LostHosts: map[string]time.Time{}, QuarantineOver: map[string]bool{}, Now: time.Now()}
	for _, p := range o.Pods {
		f.readNode(ctx, t, p.Spec.NodeName)
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
		if host := osts.PinnedHost(pv); host != "" {
			f.readHost(ctx, t, host)
			f.lostSince(o, c.Name, host)
		}
	}
	return f
}

func (f *NodeFacts) readNode(ctx context.Context, t *Target, name string) {
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

func (f *NodeFacts) readHost(ctx context.Context, t *Target, host string) {
	if _, done := f.Hosts[host]; done {
		return
	}
	list, err := t.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{corev1.LabelHostname: host}).String()})
	if err != nil {
		return
	}
	nodes := make([]*corev1.Node, len(list.Items))
	for i := range list.Items {
		nodes[i] = &list.Items[i]
	}
	f.Hosts[host] = nodes
}

// lostSince takes, from the set's status, when the controller first saw
// the host of claim lost (the blockedBy entry of the claim's pod that waits
// for the quarantine or for the permission to delete it), and whether it
// reported the quarantine over.
func (f *NodeFacts) lostSince(o Observed, claim, host string) {
	if o.Extended == nil {
		return
	}
	for _, b := range o.Extended.Status.BlockedBy {
		if !strings.HasSuffix(claim, "-"+b.Pod) {
			continue
		}
		switch b.Reason {
		case planner.ReasonClaimNotAllowed, planner.ReasonClaimRecreated:
			f.QuarantineOver[host] = true
		case planner.ReasonClaimQuarantine:
		default:
			continue
		}
		if t, ok := f.LostHosts[host]; b.Reason != planner.ReasonClaimRecreated && !b.Since.IsZero() && (!ok || b.Since.Time.Before(t)) {
			f.LostHosts[host] = b.Since.Time
		}
	}
}

// overQuarantine marks the hosts of nf whose quarantine the controller
// reported over.
func (f *NodeFacts) overQuarantine(nf *planner.NodeFacts) {
	for host, hs := range nf.Hosts {
		if f.QuarantineOver[host] {
			hs.QuarantineOver = true
			nf.Hosts[host] = hs
		}
	}
}

// claimDeletion is what the controller last wrote of its permission to
// delete claims in the set's namespace (condition ClaimRecreation).
func claimDeletion(ext *v1alpha1.StatefulSet) planner.Permission {
	c := meta.FindStatusCondition(ext.Status.Conditions, planner.ConditionClaimRecreation)
	switch {
	case c == nil:
		return ""
	case c.Status == metav1.ConditionTrue:
		return planner.PermissionAllowed
	case c.Reason == planner.ReasonClaimDeletionForbidden:
		return planner.PermissionDenied
	}
	return ""
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
