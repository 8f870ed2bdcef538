package plane

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.etcd.io/bbolt"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.uber.org/zap"

	"github.com/ordinal-sh/ordinal/internal/plane/pki"
)

// etcdReadyTimeout bounds how long a fresh or restarted member may take to
// become ready before Start gives up.
const etcdReadyTimeout = 60 * time.Second

// startEtcd runs a single-member etcd on loopback, TLS with client
// certificates on both the client and peer ports. A corrupt member
// directory is reported, never repaired or removed.
func startEtcd(ctx context.Context, d *dataDir, serving pki.Pair, caFile string, fastDisk bool) (*embed.Etcd, string, error) {
	if err := checkEtcdData(d.path("etcd")); err != nil {
		return nil, "", err
	}
	ports, err := pickEtcdPorts(d)
	if err != nil {
		return nil, "", err
	}
	cfg := embed.NewConfig()
	cfg.Name = "ordinal"
	cfg.Dir = d.path("etcd")
	client := url.URL{Scheme: "https", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports.Client))}
	peer := url.URL{Scheme: "https", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports.Peer))}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	tls := transport.TLSInfo{CertFile: serving.CertFile, KeyFile: serving.KeyFile, TrustedCAFile: caFile, ClientCertAuth: true}
	cfg.ClientTLSInfo, cfg.PeerTLSInfo = tls, tls
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{d.path("logs", "etcd.log")}
	cfg.UnsafeNoFsync = fastDisk
	cfg.QuotaBackendBytes = 4 << 30

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("starting etcd in %s (if its data is corrupt, move that directory aside to start fresh): %w", cfg.Dir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, "", fmt.Errorf("etcd in %s failed: %w", cfg.Dir, err)
	case <-time.After(etcdReadyTimeout):
		e.Close()
		return nil, "", fmt.Errorf("etcd in %s was not ready after %s", cfg.Dir, etcdReadyTimeout)
	case <-ctx.Done():
		e.Close()
		return nil, "", ctx.Err()
	}
	if err := d.savePorts(ports); err != nil {
		e.Close()
		return nil, "", err
	}
	return e, client.String(), nil
}

// checkEtcdData opens an existing member's database and write-ahead log
// read-only before etcd does: etcd panics in a background goroutine on a
// corrupt database, which would take the whole process down without a word
// about which directory is at fault.
func checkEtcdData(dir string) error {
	db := filepath.Join(dir, "member", "snap", "db")
	if _, err := os.Stat(db); err == nil {
		b, err := bbolt.Open(db, 0o400, &bbolt.Options{ReadOnly: true, Timeout: 2 * time.Second})
		if err != nil {
			return fmt.Errorf("etcd database %s is unreadable or corrupt; move %s aside to start fresh: %w", db, dir, err)
		}
		_ = b.Close()
	}
	walDir := filepath.Join(dir, "member", "wal")
	if _, err := os.Stat(walDir); err == nil {
		if _, err := wal.ValidSnapshotEntries(zap.NewNop(), walDir); err != nil {
			return fmt.Errorf("etcd log %s is unreadable or corrupt; move %s aside to start fresh: %w", walDir, dir, err)
		}
	}
	return nil
}

// pickEtcdPorts reuses the ports of the last run when they are free, so the
// member's recorded peer address stays true, and otherwise takes free ones.
func pickEtcdPorts(d *dataDir) (etcdPorts, error) {
	saved, err := d.loadPorts()
	if err != nil {
		return saved, err
	}
	if saved.Client > 0 && saved.Peer > 0 && portFree(saved.Client) && portFree(saved.Peer) {
		return saved, nil
	}
	c, err := freePort()
	if err != nil {
		return saved, err
	}
	p, err := freePort()
	if err != nil {
		return saved, err
	}
	return etcdPorts{Client: c, Peer: p}, nil
}

func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
