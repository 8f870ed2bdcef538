package dns

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

func service(ns, name, clusterIP string, ports ...corev1.ServicePort) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: clusterIP, Ports: ports}}
	if clusterIP != corev1.ClusterIPNone {
		s.Spec.ClusterIPs = []string{clusterIP}
	}
	return s
}

type ep struct {
	host, addr string
	ready      *bool
}

func slice(ns, name, service string, ports []discoveryv1.EndpointPort, eps ...ep) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: service}},
		AddressType: discoveryv1.AddressTypeIPv4, Ports: ports,
	}
	for _, e := range eps {
		end := discoveryv1.Endpoint{Addresses: []string{e.addr}, Conditions: discoveryv1.EndpointConditions{Ready: e.ready}}
		if e.host != "" {
			end.Hostname = ptr.To(e.host)
		}
		es.Endpoints = append(es.Endpoints, end)
	}
	return es
}

func pod(ns, name, ip string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Status: corev1.PodStatus{PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}}}
}

// cluster is a headless "nginx" Service for web-0..2 (web-2 not ready, a
// duplicate of web-0 in a second slice), a ClusterIP "api" Service with
// a named and an unnamed port, an ExternalName Service, and pods.
func cluster() []runtime.Object {
	tcp := ptr.To(corev1.ProtocolTCP)
	return []runtime.Object{
		service("default", "nginx", corev1.ClusterIPNone),
		slice("default", "nginx-a", "nginx", []discoveryv1.EndpointPort{{Name: ptr.To("web"), Port: ptr.To[int32](80), Protocol: tcp}},
			ep{host: "web-0", addr: "10.0.0.10"}, ep{host: "web-1", addr: "10.0.0.11", ready: ptr.To(true)},
			ep{host: "web-2", addr: "10.0.0.12", ready: ptr.To(false)}, ep{addr: "10.0.0.13"}),
		slice("default", "nginx-b", "nginx", []discoveryv1.EndpointPort{{Name: ptr.To("web"), Port: ptr.To[int32](80), Protocol: tcp}},
			ep{host: "web-0", addr: "10.0.0.10"}),
		service("default", "api", "10.96.0.20",
			corev1.ServicePort{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443},
			corev1.ServicePort{Protocol: corev1.ProtocolUDP, Port: 53}),
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ext"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com"}},
		service("empty", "nobody", corev1.ClusterIPNone),
		pod("default", "web-0", "10.0.0.10"),
	}
}

func startServer(t *testing.T, objs ...runtime.Object) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, Config{Client: fake.NewClientset(objs...), Address: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func ask(t *testing.T, s *Server, network, name string, qtype uint16) *dns.Msg {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	c := &dns.Client{Net: network, Timeout: 5 * time.Second}
	r, _, err := c.Exchange(m, s.Addr())
	if err != nil {
		t.Fatalf("%s %s over %s: %v", name, dns.TypeToString[qtype], network, err)
	}
	return r
}

// records is the answer (then, after "|", the additional section) as
// sorted "type value" strings.
func records(r *dns.Msg) string {
	show := func(rrs []dns.RR) []string {
		var out []string
		for _, rr := range rrs {
			f := strings.Fields(rr.String())
			out = append(out, strings.Join(append([]string{f[0], f[3]}, f[4:]...), " "))
		}
		slices.Sort(out)
		return out
	}
	s := strings.Join(show(r.Answer), "; ")
	if extra := show(r.Extra); len(extra) > 0 {
		s += " | " + strings.Join(extra, "; ")
	}
	return s
}

func TestTheClusterDNSAnswersTheSchemaRecords(t *testing.T) {
	s := startServer(t, cluster()...)
	tests := []struct {
		name  string
		qtype uint16
		rcode int
		want  string
	}{
		{"web-0.nginx.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "web-0.nginx.default.svc.cluster.local. A 10.0.0.10"},
		{"WEB-1.Nginx.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "WEB-1.Nginx.default.svc.cluster.local. A 10.0.0.11"},
		{"web-2.nginx.default.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, ""},
		{"web-0.nginx.default.svc.cluster.local.", dns.TypeAAAA, dns.RcodeSuccess, ""},
		{"10-0-0-13.nginx.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "10-0-0-13.nginx.default.svc.cluster.local. A 10.0.0.13"},
		{"nginx.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess,
			"nginx.default.svc.cluster.local. A 10.0.0.10; nginx.default.svc.cluster.local. A 10.0.0.11; nginx.default.svc.cluster.local. A 10.0.0.13"},
		{"_web._tcp.nginx.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeSuccess,
			"_web._tcp.nginx.default.svc.cluster.local. SRV 0 100 80 10-0-0-13.nginx.default.svc.cluster.local.; " +
				"_web._tcp.nginx.default.svc.cluster.local. SRV 0 100 80 web-0.nginx.default.svc.cluster.local.; " +
				"_web._tcp.nginx.default.svc.cluster.local. SRV 0 100 80 web-1.nginx.default.svc.cluster.local. | " +
				"10-0-0-13.nginx.default.svc.cluster.local. A 10.0.0.13; web-0.nginx.default.svc.cluster.local. A 10.0.0.10; web-1.nginx.default.svc.cluster.local. A 10.0.0.11"},
		{"nobody.empty.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, ""},
		{"api.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "api.default.svc.cluster.local. A 10.96.0.20"},
		{"_https._tcp.api.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeSuccess,
			"_https._tcp.api.default.svc.cluster.local. SRV 0 100 443 api.default.svc.cluster.local."},
		{"_http._tcp.api.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeNameError, ""},
		{"web-0.api.default.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, ""},
		{"ext.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "ext.default.svc.cluster.local. CNAME db.example.com."},
		{"missing.default.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, ""},
		{"default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, ""},
		{"nowhere.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, ""},
		{"10-0-0-10.default.pod.cluster.local.", dns.TypeA, dns.RcodeSuccess, "10-0-0-10.default.pod.cluster.local. A 10.0.0.10"},
		{"10-0-0-99.default.pod.cluster.local.", dns.TypeA, dns.RcodeNameError, ""},
		{"10-0-0-10.other.pod.cluster.local.", dns.TypeA, dns.RcodeNameError, ""},
		{"dns-version.cluster.local.", dns.TypeTXT, dns.RcodeSuccess, `dns-version.cluster.local. TXT "1.1.0"`},
		{"20.0.96.10.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, "20.0.96.10.in-addr.arpa. PTR api.default.svc.cluster.local."},
		{"10.0.0.10.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, "10.0.0.10.in-addr.arpa. PTR web-0.nginx.default.svc.cluster.local."},
		{"12.0.0.10.in-addr.arpa.", dns.TypePTR, dns.RcodeNameError, ""},
		{"example.com.", dns.TypeA, dns.RcodeRefused, ""},
		{"kubernetes.io.", dns.TypeA, dns.RcodeRefused, ""},
	}
	for _, tt := range tests {
		for _, network := range []string{"udp", "tcp"} {
			r := ask(t, s, network, tt.name, tt.qtype)
			if r.Rcode != tt.rcode || records(r) != tt.want {
				t.Errorf("%s %s over %s: %s %q, want %s %q", tt.name, dns.TypeToString[tt.qtype], network,
					dns.RcodeToString[r.Rcode], records(r), dns.RcodeToString[tt.rcode], tt.want)
			}
			if tt.rcode != dns.RcodeRefused && (!r.Authoritative || r.RecursionAvailable) {
				t.Errorf("%s: authoritative %v, recursion available %v", tt.name, r.Authoritative, r.RecursionAvailable)
			}
			if (tt.rcode == dns.RcodeNameError || tt.want == "") && tt.rcode != dns.RcodeRefused &&
				(len(r.Ns) != 1 || r.Ns[0].Header().Rrtype != dns.TypeSOA) {
				t.Errorf("%s: a negative answer without the zone's SOA: %v", tt.name, r.Ns)
			}
		}
	}
}

// A name follows its pod: when the EndpointSlice moves web-0 to a new
// address, the next answer has it.
func TestANameFollowsItsPodToANewAddress(t *testing.T) {
	objs := cluster()
	client := fake.NewClientset(objs...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, Config{Client: client, Address: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	tcp := ptr.To(corev1.ProtocolTCP)
	moved := slice("default", "nginx-b", "nginx", []discoveryv1.EndpointPort{{Name: ptr.To("web"), Port: ptr.To[int32](80), Protocol: tcp}},
		ep{host: "web-0", addr: "10.0.0.50"})
	if err := client.DiscoveryV1().EndpointSlices("default").Delete(ctx, "nginx-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.DiscoveryV1().EndpointSlices("default").Update(ctx, moved, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "web-0.nginx.default.svc.cluster.local. A 10.0.0.50"
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := records(ask(t, s, "udp", "web-0.nginx.default.svc.cluster.local.", dns.TypeA))
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("web-0 answers %q, want %q", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestReverseNamesReadBackToAddresses(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"4.3.2.1.in-addr.arpa.", "1.2.3.4"},
		{"1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa.", "fd00::1"},
		{"4.3.2.in-addr.arpa.", "invalid IP"},
		{"4.3.2.256.in-addr.arpa.", "invalid IP"},
	} {
		got, _ := fromArpa(tt.name)
		if got.String() != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{{"10-0-0-1", "10.0.0.1"}, {"fd00--1", "fd00::1"}, {"10-0-0", "invalid IP"}} {
		got, _ := undash(tt.in)
		if got.String() != tt.want {
			t.Errorf("%s: %s, want %s", tt.in, got, tt.want)
		}
	}
}
