package dns

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
)

// An address another program holds, over UDP or over TCP, main or
// further, is refused with the address and the protocol named.
func TestABusyAddressIsNamedWithItsProtocol(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	tests := []struct {
		name string
		main string
		also []string
		want string
	}{
		{"main, UDP taken", udp.LocalAddr().String(), nil, "cluster DNS: listening on " + udp.LocalAddr().String() + " (udp)"},
		{"main, TCP taken", tcp.Addr().String(), nil, "cluster DNS: listening on " + tcp.Addr().String() + " (tcp)"},
		{"further, UDP taken", "127.0.0.1:0", []string{udp.LocalAddr().String()}, "cluster DNS: listening on " + udp.LocalAddr().String() + " (udp)"},
		{"further, TCP taken", "127.0.0.1:0", []string{tcp.Addr().String()}, "cluster DNS: listening on " + tcp.Addr().String() + " (tcp)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Start(ctx, Config{Client: fake.NewClientset(), Address: tt.main, AlsoAddresses: tt.also})
			if err == nil {
				_ = s.Close()
				t.Fatalf("started on a busy address; want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}
