package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// Server is a running dashboard.
type Server struct {
	cfg Config
	// rest is the client configuration the clients are built from.
	rest  *rest.Config
	store *store
	// client reads what the caches do not hold: the config copies a
	// revision diff compares (configdiff.go).
	client kubernetes.Interface
	hub    *hub
	guard  *guard
	ln     net.Listener
	http   *http.Server
	cancel context.CancelFunc
	errc   chan error
	now    func() time.Time
}

// Start validates cfg, checks that rc's user may read what the pages
// show, starts the watches and waits for their first list, then listens
// and serves until Close or ctx ends. A failed start leaves nothing
// running.
//
// Every read and action goes through the API as rc's user: the server has
// no credentials of its own. With cfg.ReadOnly its clients refuse every
// write before it leaves the process, whatever rc's user may do; for the
// API server to refuse them too, rc must be a read-only identity (see
// StartAsAdmin). Extended sets are shown when the cluster serves
// their kind.
func Start(ctx context.Context, cfg Config, rc *rest.Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rc = clientConfig(rc, cfg.ReadOnly)
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("dashboard client: %w", err)
	}
	ext, err := ostsclient.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("dashboard client: %w", err)
	}
	s, err := startWith(ctx, cfg, client, ext)
	if err != nil {
		return nil, err
	}
	s.rest = rc
	return s, nil
}

// StartAsAdmin is Start for a dashboard over an administrator's
// credentials (`ordinal up`). Read-only, it does not hold them: it grants
// ReadOnlyUser the reads of the pages and acts as that user, so the API
// server itself refuses any write, not only the server's handlers and
// client. Otherwise it acts as admin.
func StartAsAdmin(ctx context.Context, cfg Config, admin *rest.Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rc := admin
	if cfg.ReadOnly {
		var err error
		if rc, err = impersonateReadOnly(ctx, admin); err != nil {
			return nil, err
		}
	}
	return Start(ctx, cfg, rc)
}

// startWith is Start with the clients made: ext reaches the extended kind
// (nil: apps/v1 sets only).
func startWith(ctx context.Context, cfg Config, client kubernetes.Interface, ext *ostsclient.Client) (*Server, error) {
	extended, err := showExtended(client, ext)
	if err != nil {
		return nil, err
	}
	if err := preflight(ctx, client, extended, cfg.Namespace); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s, err := start(ctx, cfg, client, extended)
	if err != nil {
		cancel()
		return nil, err
	}
	s.cancel = cancel
	return s, nil
}

// showExtended returns ext when the cluster serves the extended kind, nil
// otherwise.
func showExtended(client kubernetes.Interface, ext *ostsclient.Client) (*ostsclient.Client, error) {
	if ext == nil {
		return nil, nil
	}
	ok, err := kubeclient.ExtendedInstalled(client.Discovery())
	if err != nil || !ok {
		return nil, err
	}
	return ext, nil
}

func start(ctx context.Context, cfg Config, client kubernetes.Interface, ext *ostsclient.Client) (*Server, error) {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(cfg.Namespace))
	kinds := []Kind{NewStatefulSets(client, factory)}
	if ext != nil {
		k, err := NewExtendedStatefulSets(client, ext, factory, cfg.Namespace)
		if err != nil {
			return nil, err
		}
		kinds = append(kinds, k)
	}
	st, err := newStore(factory, kinds)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, store: st, client: client, errc: make(chan error, 1), now: time.Now}
	s.hub = newHub(cfg.Interval, s.renderTopic)
	if err := s.watch(); err != nil {
		return nil, err
	}
	if err := st.sync(ctx, factory, cfg.SyncTimeout); err != nil {
		return nil, err
	}
	go s.hub.run(ctx)
	if err := s.listen(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// listen binds the address and serves in the background.
func (s *Server) listen(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Address)
	if err != nil {
		return fmt.Errorf("dashboard: listening on %s: %w", s.cfg.Address, err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	var hosts map[string]bool
	if isLoopback(host) {
		hosts = map[string]bool{ln.Addr().String(): true, "localhost:" + port: true, "127.0.0.1:" + port: true, "[::1]:" + port: true}
	}
	s.guard, err = newGuard(port, hosts, s.cfg.TLSCertFile != "")
	if err != nil {
		_ = ln.Close()
		return err
	}
	s.ln = ln
	s.http = &http.Server{
		Handler:           s.guard.wrap(s.routes()),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go s.serve()
	return nil
}

func (s *Server) serve() {
	var err error
	if s.cfg.TLSCertFile != "" {
		err = s.http.ServeTLS(s.ln, s.cfg.TLSCertFile, s.cfg.TLSKeyFile)
	} else {
		err = s.http.Serve(s.ln)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.errc <- fmt.Errorf("dashboard: %w", err)
	}
}

// URL is the address to open, token included: the one line to show the
// user, and nowhere else.
func (s *Server) URL() string {
	scheme := "http"
	if s.cfg.TLSCertFile != "" {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s/?token=%s", scheme, s.ln.Addr(), s.guard.token)
}

// RESTConfig returns a copy of the client configuration the server reads
// and acts with: its user, any impersonation and, when read-only, the
// transport that refuses writes.
func (s *Server) RESTConfig() *rest.Config { return rest.CopyConfig(s.rest) }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Err reports a failure of the server after it started.
func (s *Server) Err() <-chan error { return s.errc }

// Close stops the server, in order: the watches and the pushes end (open
// event streams see their context end and return), then the listener
// closes and in-flight requests get up to five seconds to finish.
func (s *Server) Close() error {
	s.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.http.Shutdown(ctx)
}
