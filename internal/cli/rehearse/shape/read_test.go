package shape

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/setops"
)

// source is a cluster with the set web (2 pods, a claim each) in shop,
// the objects around it and others that are not its.
func source() []runtime.Object {
	set := web().Apps
	set.Namespace, set.UID = "shop", "u-web"
	set.Spec.Replicas = ptr.To[int32](2)
	set.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("fast")}}}
	set.Spec.Template.Spec.PriorityClassName = "high"
	owner := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "u-web", Controller: ptr.To(true)}}
	pod := func(name, node string, owned bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: map[string]string{"app": "web"}}, Spec: corev1.PodSpec{NodeName: node,
			Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}}}
		if owned {
			p.OwnerReferences = owner
		}
		return p
	}
	claim := func(name, class string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To(class),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}}}}
	}
	node := func(name, zone string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name, corev1.LabelTopologyZone: zone}},
			Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}, {Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoExecute}}},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourcePods: resource.MustParse("10")},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	}
	other := pod("cache-0", "n1", false)
	other.Namespace, other.Labels = "cache", nil
	budget := func(name string, app string) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr.To(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
	}
	return []runtime.Object{set,
		pod("web-0", "n1", true), pod("web-1", "n2", true), pod("web-x", "n2", false), other,
		claim("data-web-0", "fast"), claim("data-web-1", "fast"), claim("data-web-7", "fast"), claim("logs", "fast"),
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "ebs.csi.aws.com",
			VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer), AllowVolumeExpansion: ptr.To(false)},
		budget("web", "web"), budget("other", "other"),
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}, Spec: corev1.ServiceSpec{ClusterIP: "None", Selector: map[string]string{"app": "web"}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web-lb", Namespace: "shop"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.0.0.9",
			Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80, NodePort: 30080}}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: "shop"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "cache"}}},
		node("n1", "a"), node("n2", "b"),
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e1", Namespace: "shop"}, InvolvedObject: corev1.ObjectReference{Kind: "StatefulSet", Name: "web"}, Reason: "SuccessfulCreate"},
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e2", Namespace: "shop"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-3"}, Reason: "Killing"},
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e3", Namespace: "shop"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "cache-0"}, Reason: "Killing"},
	}
}

func TestReadTakesTheSetAndWhatShapesItsRollout(t *testing.T) {
	client := fake.NewClientset(source()...)
	s, err := Read(context.Background(), Clients{Kube: client}, "shop", setops.Ref{Kind: setops.AppsV1, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	names := func(n int, name func(int) string) string {
		out := make([]string, n)
		for i := range out {
			out[i] = name(i)
		}
		return strings.Join(out, ",")
	}
	for what, got := range map[string]string{
		"pods":     names(len(s.Pods), func(i int) string { return s.Pods[i].Name }),
		"claims":   names(len(s.Claims), func(i int) string { return s.Claims[i].Name }),
		"classes":  names(len(s.StorageClasses), func(i int) string { return s.StorageClasses[i].Name }),
		"budgets":  names(len(s.Budgets), func(i int) string { return s.Budgets[i].Name }),
		"services": names(len(s.Services), func(i int) string { return s.Services[i].Name }),
		"nodes":    names(len(s.Nodes), func(i int) string { return s.Nodes[i].Name }),
		"events":   names(len(s.Events), func(i int) string { return s.Events[i].Name }),
	} {
		want := map[string]string{
			"pods": "web-0,web-1", "claims": "data-web-0,data-web-1,data-web-7", "classes": "fast", "budgets": "web",
			"services": "web,web-lb", "nodes": "n1,n2", "events": "e1,e2",
		}[what]
		if got != want {
			t.Errorf("%s: %s, want %s", what, got, want)
		}
	}
	if cpu := s.Used["n1"][corev1.ResourceCPU]; cpu.String() != "500m" {
		t.Errorf("used on n1: %v, want the other pod's 500m", s.Used["n1"])
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "PriorityClass high") {
		t.Errorf("notes %q, want the missing PriorityClass", s.Notes)
	}
}

func TestWhatTheIdentityMayNotReadBecomesANote(t *testing.T) {
	client := fake.NewClientset(source()...)
	forbid := func(resource string) {
		client.PrependReactor("list", resource, func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", nil)
		})
	}
	forbid("nodes")
	forbid("events")
	s, err := Read(context.Background(), Clients{Kube: client}, "shop", setops.Ref{Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(s.Notes, "\n")
	for _, want := range []string{"may not read Nodes: the copy has a node for each node the pods run on", "may not read events: shutdowns are played from the stated defaults"} {
		if !strings.Contains(text, want) {
			t.Errorf("notes miss %q:\n%s", want, text)
		}
	}
	c := s.Copy(map[string]string{"kwok.x-k8s.io/node": "fake"}, "ordinal.dev/hostpath")
	if len(c.Nodes) != 2 || c.Nodes[1].Name != "n2" || c.Nodes[1].Labels[corev1.LabelHostname] != "n2" {
		t.Errorf("nodes of the pods: %+v", c.Nodes)
	}
	client.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", nil)
	})
	if _, err := Read(context.Background(), Clients{Kube: client}, "shop", setops.Ref{Name: "web"}); !apierrors.IsForbidden(err) {
		t.Errorf("without its pods: %v, want the Forbidden error", err)
	}
}

func TestTheCopyKeepsTheShapeAndDropsWhatTheSourceClusterSet(t *testing.T) {
	s, err := Read(context.Background(), Clients{Kube: fake.NewClientset(source()...)}, "shop", setops.Ref{Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Copy(map[string]string{"kwok.x-k8s.io/node": "fake"}, "ordinal.dev/hostpath")
	n1 := c.Nodes[0]
	if cpu, pods := n1.Status.Allocatable[corev1.ResourceCPU], n1.Status.Allocatable[corev1.ResourcePods]; cpu.String() != "1500m" || pods.String() != "9" {
		t.Errorf("n1 allocatable %v, want 2 cpu and 10 pods less the other pod's 500m and 1", n1.Status.Allocatable)
	}
	if len(n1.Spec.Taints) != 1 || n1.Spec.Taints[0].Key != "dedicated" || n1.Labels[corev1.LabelTopologyZone] != "a" || n1.Annotations["kwok.x-k8s.io/node"] != "fake" {
		t.Errorf("n1 %+v, want its zone, its own taint only, and the simulated kubelet's mark", n1)
	}
	class := c.StorageClasses[0]
	if class.Provisioner != "ordinal.dev/hostpath" || *class.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer || *class.AllowVolumeExpansion {
		t.Errorf("class %+v, want the source's binding mode and expansion on the plane's provisioner", class)
	}
	if len(c.Services) != 2 || c.Services[1].Spec.Type != corev1.ServiceTypeClusterIP || c.Services[1].Spec.ClusterIP != "" || c.Services[1].Spec.Ports[0].NodePort != 0 {
		t.Errorf("services %+v, want the load balancer as a ClusterIP Service", c.Services)
	}
	if c.Services[0].Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("the governing Service lost its headlessness: %+v", c.Services[0].Spec)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "web-lb is LoadBalancer in the source, ClusterIP in the copy") {
		t.Errorf("notes %q", c.Notes)
	}
	if size := c.Claims[0].Spec.Resources.Requests[corev1.ResourceStorage]; len(c.Claims) != 3 || size.String() != "5Gi" || c.Claims[0].Namespace != "" {
		t.Errorf("claims %+v", c.Claims)
	}
	if len(c.PriorityClasses) != 1 || c.PriorityClasses[0].Value != 0 || len(c.Budgets) != 1 {
		t.Errorf("priority classes %+v, budgets %+v", c.PriorityClasses, c.Budgets)
	}
	src := s.Source()
	if src.Apps.Namespace != "" || src.Apps.UID != "" || src.Apps.Spec.Template.Spec.Containers[0].Image != "example/app:v1" {
		t.Errorf("source set %+v, want it cleaned of the cluster's fields", src.Apps.ObjectMeta)
	}
}
