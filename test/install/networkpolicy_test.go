package install

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// networkPolicies are the manifest's NetworkPolicies.
func networkPolicies(t *testing.T, manifest string) []networkingv1.NetworkPolicy {
	t.Helper()
	var out []networkingv1.NetworkPolicy
	for _, o := range objects(t, manifest) {
		if o.GetKind() != "NetworkPolicy" {
			continue
		}
		var np networkingv1.NetworkPolicy
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &np); err != nil {
			t.Fatal(err)
		}
		out = append(out, np)
	}
	return out
}

func tcp(port int) networkingv1.NetworkPolicyPort {
	p, proto := intstr.FromInt32(int32(port)), corev1.ProtocolTCP
	return networkingv1.NetworkPolicyPort{Port: &p, Protocol: &proto}
}

// The chart's NetworkPolicy is off by default; on, it selects the
// controller's pods and lets in only the chosen scrapers, on the metrics
// port, and out only the API server's addresses on its ports and the extra
// rules (the hooks' receivers). With no scrapers chosen nothing comes in.
func TestTheNetworkPolicyLetsInOnlyScrapersAndOutOnlyTheAPIServerAndHooks(t *testing.T) {
	if got := networkPolicies(t, releases["default"].mustRender(t)); len(got) != 0 {
		t.Errorf("the defaults render %d NetworkPolicies, want none", len(got))
	}
	got := networkPolicies(t, releases["network-policy"].mustRender(t))
	if len(got) != 1 {
		t.Fatalf("%d NetworkPolicies, want 1", len(got))
	}
	np := got[0]
	want := networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{
			"app.kubernetes.io/name": "ordinal-controller", "app.kubernetes.io/instance": "ordinal"}},
		PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		Ingress: []networkingv1.NetworkPolicyIngressRule{{
			From: []networkingv1.NetworkPolicyPeer{{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "monitoring"}},
				PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "prometheus"}}}},
			Ports: []networkingv1.NetworkPolicyPort{tcp(8080)}}},
		Egress: []networkingv1.NetworkPolicyEgressRule{
			{Ports: []networkingv1.NetworkPolicyPort{tcp(6443)}, To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "172.18.0.2/32"}}}},
			{Ports: []networkingv1.NetworkPolicyPort{tcp(8080)}, To: []networkingv1.NetworkPolicyPeer{{
				NamespaceSelector: &metav1.LabelSelector{}, PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}},
		},
	}
	if np.Namespace != "ordinal-system" {
		t.Errorf("NetworkPolicy in %q, want the release's namespace", np.Namespace)
	}
	if diff := cmp.Diff(want, np.Spec); diff != "" {
		t.Errorf("NetworkPolicy (-want +got):\n%s", diff)
	}

	closed := networkPolicies(t, release{name: "ordinal", namespace: "ordinal-system", values: "networkPolicy: {enabled: true}\n"}.mustRender(t))
	if len(closed) != 1 {
		t.Fatalf("%d NetworkPolicies, want 1", len(closed))
	}
	spec := closed[0].Spec
	if spec.Ingress == nil || len(spec.Ingress) != 0 || len(spec.PolicyTypes) != 2 {
		t.Errorf("without metricsFrom: ingress %v with policy types %v, want no ingress rule under both types", spec.Ingress, spec.PolicyTypes)
	}
	if len(spec.Egress) != 1 || len(spec.Egress[0].To) != 0 || !cmp.Equal(spec.Egress[0].Ports, []networkingv1.NetworkPolicyPort{tcp(443), tcp(6443)}) {
		t.Errorf("without API server addresses: egress %+v, want ports 443 and 6443 to any address", spec.Egress)
	}
}
