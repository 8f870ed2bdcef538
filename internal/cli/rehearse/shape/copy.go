package shape

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Copy are the objects a rehearsal builds its copy of the source from,
// cleaned of everything the source cluster set on them: the cluster's
// nodes, classes and priorities, and what each copy's namespace holds
// besides the set.
type Copy struct {
	Nodes           []*corev1.Node
	StorageClasses  []*storagev1.StorageClass
	PriorityClasses []*schedulingv1.PriorityClass
	// ServiceAccounts, Services, Budgets and Claims are created in each
	// copy's namespace, in that order, before the set.
	ServiceAccounts []*corev1.ServiceAccount
	Services        []*corev1.Service
	Budgets         []*policyv1.PodDisruptionBudget
	Claims          []*corev1.PersistentVolumeClaim
	// Notes say what the copy carries differently from the source.
	Notes []string
}

// Copy makes the copy's objects: its nodes carry nodeAnnotations (the
// simulated kubelet's mark) and its StorageClasses name provisioner.
func (s *Shape) Copy(nodeAnnotations map[string]string, provisioner string) Copy {
	c := Copy{}
	c.Nodes, c.Notes = s.copyNodes(nodeAnnotations)
	for _, name := range classNames(s) {
		c.StorageClasses = append(c.StorageClasses, copyClass(name, s.StorageClasses, provisioner))
	}
	if name := s.Set.Spec.Template.Spec.PriorityClassName; name != "" {
		c.PriorityClasses = append(c.PriorityClasses, copyPriority(name, s.PriorityClasses))
	}
	if sa := s.Set.Spec.Template.Spec.ServiceAccountName; sa != "" && sa != "default" {
		c.ServiceAccounts = append(c.ServiceAccounts, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}})
	}
	var notes []string
	c.Services, notes = s.copyServices()
	c.Notes = append(c.Notes, notes...)
	for _, b := range s.Budgets {
		c.Budgets = append(c.Budgets, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: b.Name, Labels: b.Labels},
			Spec: policyv1.PodDisruptionBudgetSpec{Selector: b.Spec.Selector, MinAvailable: b.Spec.MinAvailable,
				MaxUnavailable: b.Spec.MaxUnavailable, UnhealthyPodEvictionPolicy: b.Spec.UnhealthyPodEvictionPolicy},
		})
	}
	for _, cl := range s.Claims {
		c.Claims = append(c.Claims, copyClaim(cl))
	}
	return c
}

// copyNodes copies the source's nodes: names, labels, the taints a person
// or a provider set (not the node lifecycle's node.kubernetes.io ones),
// cordons, capacity, and as allocatable what the other pods leave free.
// Without the nodes, it makes one node per node the pods run on, with the
// labels the template selects.
func (s *Shape) copyNodes(annotations map[string]string) ([]*corev1.Node, []string) {
	if len(s.Nodes) == 0 {
		return s.nodesOfPods(annotations), nil
	}
	var out []*corev1.Node
	var notReady []string
	for _, n := range s.Nodes {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels, Annotations: annotations},
			Spec:       corev1.NodeSpec{Unschedulable: n.Spec.Unschedulable, Taints: ownTaints(n.Spec.Taints)},
			Status:     corev1.NodeStatus{Capacity: n.Status.Capacity, Allocatable: free(n.Status.Allocatable, s.Used[n.Name])},
		}
		out = append(out, node)
		if !nodeReady(n) {
			notReady = append(notReady, n.Name)
		}
	}
	var notes []string
	if len(notReady) > 0 {
		notes = append(notes, fmt.Sprintf("nodes not Ready in the source are Ready in the copy: %s", strings.Join(notReady, ", ")))
	}
	return out, notes
}

// nodesOfPods is a node per node the pods run on (or one, when none
// runs), labelled with its hostname and what the template's nodeSelector
// asks.
func (s *Shape) nodesOfPods(annotations map[string]string) []*corev1.Node {
	var names []string
	for _, p := range s.Pods {
		if p.Spec.NodeName != "" && !slices.Contains(names, p.Spec.NodeName) {
			names = append(names, p.Spec.NodeName)
		}
	}
	if len(names) == 0 {
		names = []string{"rehearsal-node-0"}
	}
	sort.Strings(names)
	out := make([]*corev1.Node, 0, len(names))
	for _, name := range names {
		labels := map[string]string{corev1.LabelHostname: name}
		for k, v := range s.Set.Spec.Template.Spec.NodeSelector {
			labels[k] = v
		}
		out = append(out, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations}})
	}
	return out
}

// ownTaints drops the taints the node lifecycle manages from its
// conditions, which the copy's nodes get from their own.
func ownTaints(taints []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range taints {
		if strings.HasPrefix(t.Key, "node.kubernetes.io/") || strings.HasPrefix(t.Key, "node.cloudprovider.kubernetes.io/") {
			continue
		}
		t.TimeAdded = nil
		out = append(out, t)
	}
	return out
}

// free is allocatable less used, never below zero.
func free(allocatable, used corev1.ResourceList) corev1.ResourceList {
	out := allocatable.DeepCopy()
	for name, q := range used {
		if have, ok := out[name]; ok {
			have.Sub(q)
			if have.Sign() < 0 {
				have = *resource.NewQuantity(0, have.Format)
			}
			out[name] = have
		}
	}
	return out
}

func resourceOne() *resource.Quantity { return resource.NewQuantity(1, resource.DecimalSI) }

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// copyClass is the source's class of that name, on the plane's
// provisioner: its binding mode and expansion, deleted with its claims.
// A class the source would not show binds at once and allows expansion.
func copyClass(name string, read []*storagev1.StorageClass, provisioner string) *storagev1.StorageClass {
	out := &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner,
		ReclaimPolicy:     ptr.To(corev1.PersistentVolumeReclaimDelete),
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingImmediate), AllowVolumeExpansion: ptr.To(true),
	}
	if i := slices.IndexFunc(read, func(c *storagev1.StorageClass) bool { return c.Name == name }); i >= 0 {
		out.VolumeBindingMode, out.AllowVolumeExpansion = read[i].VolumeBindingMode, read[i].AllowVolumeExpansion
	}
	return out
}

func copyPriority(name string, read []*schedulingv1.PriorityClass) *schedulingv1.PriorityClass {
	out := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if i := slices.IndexFunc(read, func(c *schedulingv1.PriorityClass) bool { return c.Name == name }); i >= 0 {
		out.Value, out.PreemptionPolicy = read[i].Value, read[i].PreemptionPolicy
	}
	return out
}

// copyServices copies the Services that select the set's pods and its
// governing Service, as ClusterIP or headless ones (the copy has no load
// balancers nor node ports), or makes the governing one headless when the
// source would not show it.
func (s *Shape) copyServices() ([]*corev1.Service, []string) {
	var out []*corev1.Service
	var notes []string
	governing := false
	for _, svc := range s.Services {
		governing = governing || svc.Name == s.Set.Spec.ServiceName
		c := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: svc.Name, Labels: svc.Labels}, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, Selector: svc.Spec.Selector, PublishNotReadyAddresses: svc.Spec.PublishNotReadyAddresses,
			SessionAffinity: svc.Spec.SessionAffinity,
		}}
		switch svc.Spec.Type {
		case corev1.ServiceTypeExternalName:
			c.Spec.Type, c.Spec.ExternalName = svc.Spec.Type, svc.Spec.ExternalName
		case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
			notes = append(notes, fmt.Sprintf("Service %s is %s in the source, ClusterIP in the copy", svc.Name, svc.Spec.Type))
		}
		if svc.Spec.ClusterIP == corev1.ClusterIPNone {
			c.Spec.ClusterIP = corev1.ClusterIPNone
		}
		for _, p := range svc.Spec.Ports {
			p.NodePort = 0
			c.Spec.Ports = append(c.Spec.Ports, p)
		}
		out = append(out, c)
	}
	if name := s.Set.Spec.ServiceName; name != "" && !governing {
		out = append(out, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone, Selector: s.Set.Spec.Template.Labels,
		}})
	}
	return out, notes
}

// copyClaim keeps a claim's size, class, access and volume modes; the
// copy's provisioner binds it to a volume of its own.
func copyClaim(cl *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: cl.Name, Labels: cl.Labels},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: cl.Spec.AccessModes, Resources: cl.Spec.Resources,
			StorageClassName: cl.Spec.StorageClassName, VolumeMode: cl.Spec.VolumeMode,
		},
	}
}
