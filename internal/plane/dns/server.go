package dns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/miekg/dns"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// Defaults.
const (
	// DefaultDomain is the cluster domain, as kubelets are configured
	// with it by default.
	DefaultDomain = "cluster.local"
	// DefaultTTL is the records' time to live in seconds: short, so a
	// client that caches follows a recreated pod soon.
	DefaultTTL = 5
	// SchemaVersion is the version of the DNS schema served, in the TXT
	// record dns-version.<zone>.
	SchemaVersion = "1.1.0"
)

// Config is what Start needs.
type Config struct {
	// Client reads Services, EndpointSlices and pods.
	Client kubernetes.Interface
	// Address is where to listen, UDP and TCP on the same port; port 0
	// picks a free one.
	Address string
	// AlsoAddresses are further addresses to answer on, UDP and TCP, such
	// as a real node's gateway on port 53, the only port a kubelet's
	// clusterDNS can name.
	AlsoAddresses []string
	// Domain is the zone; empty means DefaultDomain.
	Domain string
	// TTL is the records' time to live in seconds; 0 means DefaultTTL.
	TTL uint32
}

// Server is a running cluster DNS server.
type Server struct {
	zone     string // "cluster.local."
	ttl      uint32
	addr     string
	also     []string
	udp, tcp *dns.Server
	servers  []*dns.Server // udp, tcp and those of AlsoAddresses
	stop     context.CancelFunc
	data     *store
}

// Start starts the informers, waits until their caches are filled and
// listens on cfg.Address (UDP and TCP). It returns once both listeners
// serve.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Client == nil {
		return nil, errors.New("cluster DNS: no client")
	}
	domain := strings.Trim(strings.ToLower(cfg.Domain), ".")
	if domain == "" {
		domain = DefaultDomain
	}
	if _, ok := dns.IsDomainName(domain); !ok {
		return nil, fmt.Errorf("cluster DNS: %q is not a domain name", domain)
	}
	s := &Server{zone: domain + ".", ttl: cfg.TTL}
	if s.ttl == 0 {
		s.ttl = DefaultTTL
	}
	ictx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = cancel
	factory := informers.NewSharedInformerFactory(cfg.Client, 0)
	var err error
	if s.data, err = newStore(cfg.Client, factory); err != nil {
		cancel()
		return nil, err
	}
	factory.Start(ictx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			cancel()
			factory.Shutdown()
			return nil, fmt.Errorf("cluster DNS: the %v cache did not fill", typ)
		}
	}
	go func() { <-ictx.Done(); factory.Shutdown() }()
	if err := s.listen(cfg.Address); err != nil {
		cancel()
		return nil, err
	}
	for _, a := range cfg.AlsoAddresses {
		if err := s.listenAlso(a); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	return s, nil
}

// listenAlso binds UDP and TCP on one further address and serves them.
func (s *Server) listenAlso(address string) error {
	pc, l, err := bind(address)
	if err != nil {
		return err
	}
	s.also = append(s.also, pc.LocalAddr().String())
	return s.serve(&dns.Server{PacketConn: pc, Handler: s}, &dns.Server{Listener: l, Handler: s})
}

// listen binds the server's own address and serves it.
func (s *Server) listen(address string) error {
	pc, l, err := bind(address)
	if err != nil {
		return err
	}
	s.addr = pc.LocalAddr().String()
	s.udp = &dns.Server{PacketConn: pc, Handler: s}
	s.tcp = &dns.Server{Listener: l, Handler: s}
	return s.serve(s.udp, s.tcp)
}

// bind binds UDP first and TCP on the same port; with port 0, a port
// whose TCP twin is taken is given up for another, a few times.
func bind(address string) (net.PacketConn, net.Listener, error) {
	var lastErr error
	for range 5 {
		pc, err := net.ListenPacket("udp", address)
		if err != nil {
			return nil, nil, fmt.Errorf("cluster DNS: listening on %s (udp): %w", address, err)
		}
		l, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return pc, l, nil
		}
		_ = pc.Close()
		lastErr = err
		if _, port, _ := net.SplitHostPort(address); port != "0" {
			break
		}
	}
	return nil, nil, fmt.Errorf("cluster DNS: listening on %s (tcp): %w", address, lastErr)
}

// serve runs a UDP and a TCP server and returns once both have started.
func (s *Server) serve(udp, tcp *dns.Server) error {
	started := make(chan struct{}, 2)
	errc := make(chan error, 2)
	s.servers = append(s.servers, udp, tcp)
	for _, srv := range []*dns.Server{udp, tcp} {
		srv.NotifyStartedFunc = func() { started <- struct{}{} }
		go func() { errc <- srv.ActivateAndServe() }()
	}
	for range 2 {
		select {
		case <-started:
		case err := <-errc:
			_ = s.Close()
			return fmt.Errorf("cluster DNS: serving on %s: %w", addrOf(udp), err)
		case <-time.After(10 * time.Second):
			_ = s.Close()
			return fmt.Errorf("cluster DNS: serving on %s did not start", addrOf(udp))
		}
	}
	return nil
}

func addrOf(udp *dns.Server) string { return udp.PacketConn.LocalAddr().String() }

// Addr is the address the server answers on, UDP and TCP.
func (s *Server) Addr() string { return s.addr }

// AlsoAddrs are the further addresses it answers on (Config.AlsoAddresses).
func (s *Server) AlsoAddrs() []string { return s.also }

// Zone is the zone served, with its final dot.
func (s *Server) Zone() string { return s.zone }

// Close stops the listeners and the informers. It is safe to call more
// than once.
func (s *Server) Close() error {
	var errs []error
	for _, srv := range s.servers {
		if err := srv.Shutdown(); err != nil && !strings.Contains(err.Error(), "not started") {
			errs = append(errs, err)
		}
	}
	s.udp, s.tcp, s.servers = nil, nil, nil
	if s.stop != nil {
		s.stop()
	}
	return errors.Join(errs...)
}
