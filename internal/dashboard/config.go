package dashboard

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/spf13/pflag"
)

// Config is how a dashboard server listens and what it may do. NewConfig
// holds the defaults, AddFlags the flags over them, Validate the checks.
type Config struct {
	// Address is host:port to listen on; port 0 picks a free one.
	Address string
	// ReadOnly hides every action on the page, refuses its requests, and
	// gives the server a client that sends no writes (Start); StartAsAdmin
	// also drops the administrator's identity for ReadOnlyUser's.
	ReadOnly bool
	// AllowRemote permits a non-loopback Address, which then needs TLS.
	AllowRemote bool
	// TLSCertFile and TLSKeyFile serve HTTPS; required off loopback.
	TLSCertFile, TLSKeyFile string
	// Namespace limits the dashboard to one namespace; empty is all.
	Namespace string
	// Interval is the shortest time between two pushes of one page: a
	// burst of changes within it reaches the browser as one update.
	Interval time.Duration
	// SyncTimeout bounds the wait for the first list of every watch.
	SyncTimeout time.Duration
}

// NewConfig returns the defaults: a free port on 127.0.0.1, actions on,
// every namespace, pushes at most ten times a second per page.
func NewConfig() Config {
	return Config{Address: "127.0.0.1:0", Interval: 100 * time.Millisecond, SyncTimeout: time.Minute}
}

// AddFlags registers the listening flags, each name after prefix
// ("dashboard-" in `ordinal up`).
func (c *Config) AddFlags(fs *pflag.FlagSet, prefix string) {
	fs.StringVar(&c.Address, prefix+"address", c.Address, "host:port the dashboard listens on (port 0 picks a free one); loopback unless --"+prefix+"allow-remote")
	fs.BoolVar(&c.ReadOnly, prefix+"read-only", c.ReadOnly, "hide every action (pause, resume, undo, restart), refuse their requests, and let the dashboard's client send no writes")
	fs.BoolVar(&c.AllowRemote, prefix+"allow-remote", c.AllowRemote, "allow a non-loopback --"+prefix+"address (requires --"+prefix+"tls-cert-file and --"+prefix+"tls-key-file)")
	fs.StringVar(&c.TLSCertFile, prefix+"tls-cert-file", c.TLSCertFile, "serve HTTPS with this certificate (PEM)")
	fs.StringVar(&c.TLSKeyFile, prefix+"tls-key-file", c.TLSKeyFile, "the certificate's private key (PEM)")
}

// Validate checks the address and TLS settings before anything starts.
func (c Config) Validate() error {
	host, port, err := net.SplitHostPort(c.Address)
	if err != nil {
		return fmt.Errorf("dashboard address %q: want host:port, e.g. 127.0.0.1:8001: %w", c.Address, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("dashboard address %q: bad port %q", c.Address, port)
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return errors.New("dashboard TLS needs both a certificate file and a key file")
	}
	if !isLoopback(host) {
		if !c.AllowRemote {
			return fmt.Errorf("dashboard address %q is not a loopback address: anyone who can reach it could try the token; pass --allow-remote (with TLS) to listen there anyway", c.Address)
		}
		if c.TLSCertFile == "" {
			return fmt.Errorf("dashboard address %q is not a loopback address: serving it needs TLS (--tls-cert-file and --tls-key-file), so the token does not cross the network in clear", c.Address)
		}
	}
	if c.Interval <= 0 || c.SyncTimeout <= 0 {
		return errors.New("dashboard push interval and sync timeout must be positive")
	}
	return nil
}

// isLoopback accepts localhost and loopback IPs; an empty host (every
// interface) is not one.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
