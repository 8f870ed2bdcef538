package dns

import (
	"context"
	"testing"
	"time"

	"github.com/miekg/dns"
	"k8s.io/client-go/kubernetes/fake"
)

// A further address (a real node's gateway in the plane) answers the same
// records as the main one, over UDP and TCP, and stops with the server.
func TestTheServerAnswersOnItsFurtherAddressesToo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, Config{Client: fake.NewClientset(cluster()...), Address: "127.0.0.1:0", AlsoAddresses: []string{"127.0.0.2:0"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.AlsoAddrs()) != 1 {
		_ = s.Close()
		t.Fatalf("AlsoAddrs() = %v, want one address", s.AlsoAddrs())
	}
	also := s.AlsoAddrs()[0]
	for _, network := range []string{"udp", "tcp"} {
		m := new(dns.Msg)
		m.SetQuestion("web-1.nginx.default.svc.cluster.local.", dns.TypeA)
		r, _, err := (&dns.Client{Net: network, Timeout: 5 * time.Second}).Exchange(m, also)
		if err != nil {
			t.Fatalf("asking %s over %s: %v", also, network, err)
		}
		if got, want := records(r), "web-1.nginx.default.svc.cluster.local. A 10.0.0.11"; got != want {
			t.Errorf("over %s at %s: %q, want %q", network, also, got, want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	m := new(dns.Msg)
	m.SetQuestion("web-1.nginx.default.svc.cluster.local.", dns.TypeA)
	if _, _, err := (&dns.Client{Net: "tcp", Timeout: time.Second}).Exchange(m, also); err == nil {
		t.Errorf("%s still answers after Close", also)
	}
}
