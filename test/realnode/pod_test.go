package realnode

import (
	"net"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/plane/realnode"
)

// The node is Ready, tainted and labelled, with its gateway as its address.
func TestTheRealNodeJoinsTaintedBesideTheSimulatedOnes(t *testing.T) {
	n := node(t)
	ctx, _ := namespace(t)
	got, err := client.CoreV1().Nodes().Get(ctx, n.Name(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels[realnode.Label] != "true" {
		t.Errorf("labels %v lack %s=true", got.Labels, realnode.Label)
	}
	tainted := false
	for _, taint := range got.Spec.Taints {
		tainted = tainted || (taint.Key == realnode.Taint && taint.Effect == corev1.TaintEffectNoSchedule)
	}
	if !tainted {
		t.Errorf("taints %v lack %s:NoSchedule", got.Spec.Taints, realnode.Taint)
	}
	var addr string
	for _, a := range got.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			addr = a.Address
		}
	}
	if addr != n.Gateway().String() {
		t.Errorf("InternalIP %q, want the gateway %s", addr, n.Gateway())
	}
	if v := got.Status.NodeInfo.ContainerRuntimeVersion; !strings.HasPrefix(v, "containerd://2.") {
		t.Errorf("container runtime %q, want containerd 2", v)
	}
}

// A pod with a claim runs real containers on the node: a pod address on the
// bridge, a containerd container ID, the claim's directory mounted (the
// application writes its marker there), and the marker is still there for
// a new pod on the same claim.
func TestARealPodMountsItsClaimAndTheMarkerOutlivesThePod(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	newPod := func() *corev1.Pod {
		spec := withData(appSpec())
		spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app"}, Spec: spec}
		if _, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return waitPod(ctx, t, ns, "app", 2*time.Minute, "Ready", ready)
	}
	first := newPod()
	_, podNet, _ := net.ParseCIDR(realnode.DefaultPodCIDR)
	if ip := net.ParseIP(first.Status.PodIP); ip == nil || !podNet.Contains(ip) {
		t.Errorf("pod IP %q is not in the pod network %s", first.Status.PodIP, podNet)
	}
	if id := first.Status.ContainerStatuses[0].ContainerID; !strings.HasPrefix(id, "containerd://") {
		t.Errorf("container ID %q is not containerd's", id)
	}
	st := status(ctx, t, first)
	if st.Pod != "app" || st.Version != "v1" || st.Starts != 1 || !strings.Contains(st.Marker, "written by app") {
		t.Fatalf("first pod's application: %+v", st)
	}
	if err := client.CoreV1().Pods(ns).Delete(ctx, "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(ctx, t, ns, "app")
	second := newPod()
	again := status(ctx, t, second)
	if again.Marker != st.Marker || again.Starts != 2 {
		t.Errorf("the new pod on the same claim found marker %q after %d starts, want %q after 2", again.Marker, again.Starts, st.Marker)
	}
}
