package realnode

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ordinal-sh/ordinal/internal/child"
)

// Timeouts of the node's stages and of its shutdown.
const (
	runtimeReadyTimeout = 60 * time.Second
	stopGrace           = 10 * time.Second
	sandboxesTimeout    = 60 * time.Second
)

// Node is a running real node: containerd, the kubelet and kube-proxy.
type Node struct {
	cfg        Config
	gateway    net.IP
	containerd *child.Process
	kubelet    *child.Process
	proxy      *child.Process
	cri        *criClient
	hostDirs   hostDirs
	exited     chan error
	closeOnce  sync.Once
	closeErr   error
}

// Start starts the node's processes in order and returns once each runs:
//  1. containerd, until its CRI service answers ready;
//  2. the removal of every pod sandbox a previous run left (a node that
//     starts again starts empty, as after a reboot; the kubelet recreates
//     the pods bound to it);
//  3. the import of the tools directory's images;
//  4. the pods' CNI configuration;
//  5. the kubelet, which registers the node (tainted, see Taint);
//  6. kube-proxy.
//
// The caller waits for the node to turn Ready through the API. On an error
// the processes already started are stopped again.
func Start(ctx context.Context, cfg Config) (*Node, error) {
	cfg = cfg.withDefaults()
	if err := cfg.checkTools(); err != nil {
		return nil, err
	}
	if err := cfg.checkDir(); err != nil {
		return nil, err
	}
	if cfg.Dir == "" || cfg.Kubeconfig == "" || cfg.ProxyKubeconfig == "" || cfg.ServiceCIDR == "" {
		return nil, errors.New("real node: the configuration needs a directory, kubeconfigs and the service range")
	}
	if len(cfg.socket()) > maxSocketPath {
		return nil, fmt.Errorf("real node: containerd's socket %s would be longer than a unix socket path may be (%d bytes); choose a shorter --data-dir", cfg.socket(), maxSocketPath)
	}
	gw, err := cfg.Gateway()
	if err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, gateway: gw, exited: make(chan error, 1)}
	if err := n.start(ctx); err != nil {
		_ = n.Close()
		return nil, err
	}
	go n.watch()
	return n, nil
}

func (n *Node) start(ctx context.Context) error {
	if err := os.MkdirAll(n.cfg.path("logs"), 0o700); err != nil {
		return fmt.Errorf("real node: %w", err)
	}
	began := time.Now()
	if err := n.startContainerd(ctx); err != nil {
		return err
	}
	n.cfg.logf("real node: containerd ready (%s)", since(began))
	if removed, err := n.cri.removeSandboxes(ctx); err != nil {
		return fmt.Errorf("real node: clearing a previous run's pods: %w", err)
	} else if removed > 0 {
		n.cfg.logf("real node: removed %d pod sandboxes of a previous run", removed)
	}
	names, err := n.importImages(ctx)
	if err != nil {
		return err
	}
	n.cfg.logf("real node: images %v imported (%s)", names, since(began))
	if err := writeFile(n.cfg.cniConfDir()+"/10-ordinal.conflist", n.cfg.cniConfig(n.gateway)); err != nil {
		return fmt.Errorf("real node: CNI configuration: %w", err)
	}
	n.hostDirs = absentHostDirs("/")
	if err := n.startKubelet(); err != nil {
		return err
	}
	return n.startProxy()
}

func (n *Node) startContainerd(ctx context.Context) error {
	if err := writeFile(n.cfg.containerdConf(), n.cfg.containerdConfig()); err != nil {
		return fmt.Errorf("real node: containerd configuration: %w", err)
	}
	var err error
	n.containerd, err = n.startTool("containerd", "--config", n.cfg.containerdConf())
	if err != nil {
		return fmt.Errorf("real node: %w", err)
	}
	if n.cri, err = dialCRI(n.cfg.socket()); err != nil {
		return fmt.Errorf("real node: %w", err)
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, runtimeReadyTimeout, true, func(ctx context.Context) (bool, error) {
		if err := n.containerd.Exited(); err != nil {
			return false, fmt.Errorf("%w (its log: %s)", err, n.containerd.LogPath())
		}
		last = n.cri.ready(ctx)
		return last == nil, nil
	})
	if err != nil {
		if last != nil {
			return fmt.Errorf("real node: containerd did not become ready: %w (last: %w)", err, last)
		}
		return fmt.Errorf("real node: containerd did not become ready: %w", err)
	}
	return nil
}

func (n *Node) startKubelet() error {
	if err := writeFile(n.cfg.kubeletConf(), n.cfg.kubeletConfig(n.gateway)); err != nil {
		return fmt.Errorf("real node: kubelet configuration: %w", err)
	}
	var err error
	n.kubelet, err = n.startTool("kubelet", n.cfg.kubeletArgs(n.gateway)...)
	if err != nil {
		return fmt.Errorf("real node: %w", err)
	}
	return nil
}

func (n *Node) startProxy() error {
	if err := writeFile(n.cfg.proxyConf(), n.cfg.proxyConfig(n.gateway)); err != nil {
		return fmt.Errorf("real node: kube-proxy configuration: %w", err)
	}
	var err error
	n.proxy, err = n.startTool("kube-proxy", "--config="+n.cfg.proxyConf(), "--v=1")
	if err != nil {
		return fmt.Errorf("real node: %w", err)
	}
	return nil
}

// startTool starts the node's tool name with args, its output appended to
// its log. The child is in a process group of its own, so a Ctrl-C at the
// terminal reaches the plane, which stops the node in order, not every
// child at once; and it is killed if the plane dies without stopping it.
func (n *Node) startTool(name string, args ...string) (*child.Process, error) {
	return child.Start(child.Options{Name: name, Binary: n.cfg.bin(name), Args: args, Env: n.cfg.env(),
		Log: n.cfg.logPath(name), OwnGroup: true})
}

// watch reports the first process that ends before Close.
func (n *Node) watch() {
	select {
	case <-n.containerd.Done():
	case <-n.kubelet.Done():
	case <-n.proxy.Done():
	}
	for _, p := range []*child.Process{n.containerd, n.kubelet, n.proxy} {
		if err := p.Exited(); err != nil {
			n.exited <- fmt.Errorf("real node: %w (its log: %s)", err, p.LogPath())
			return
		}
	}
}

// Exited delivers an error when containerd, the kubelet or kube-proxy ends
// on its own; Close's stopping them is not reported.
func (n *Node) Exited() <-chan error { return n.exited }

// Name is the node's name.
func (n *Node) Name() string { return n.cfg.NodeName }

// Gateway is the address pods reach the host on.
func (n *Node) Gateway() net.IP { return n.gateway }

// LogDir holds containerd.log, kubelet.log and kube-proxy.log.
func (n *Node) LogDir() string { return n.cfg.path("logs") }

// Close stops the node and removes what it left on the machine, in order:
//  1. the kubelet, so nothing restarts what follows stops;
//  2. kube-proxy, then its iptables rules (kube-proxy --cleanup) and the
//     kubelet's;
//  3. every pod sandbox, through CRI: containers killed, networks torn
//     down, mounts and cgroups removed;
//  4. containerd;
//  5. any mount still under the node's directory (a projected volume of a
//     pod the kubelet had no time to tear down, a leftover network
//     namespace);
//  6. the kubelet's kubepods cgroups;
//  7. the directories the kubelet made outside the node's directory
//     (/var/lib/kubelet/device-plugins for its device plugin socket,
//     /var/log/containers for log links), when they did not exist before
//     and hold nothing else.
//
// It is safe to call more than once.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		var errs []error
		errs = append(errs, n.kubelet.Stop(syscall.SIGTERM, stopGrace), n.proxy.Stop(syscall.SIGTERM, stopGrace))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		if n.proxy != nil {
			errs = append(errs, run(ctx, n.cfg.bin("kube-proxy"), "--cleanup", "--config="+n.cfg.proxyConf()))
		}
		if n.kubelet != nil {
			removeKubeletChains(ctx)
		}
		cancel()
		if n.cri != nil {
			ctx, cancel := context.WithTimeout(context.Background(), sandboxesTimeout)
			_, err := n.cri.removeSandboxes(ctx)
			cancel()
			errs = append(errs, err)
			_ = n.cri.Close()
		}
		errs = append(errs, n.containerd.Stop(syscall.SIGTERM, stopGrace))
		errs = append(errs, unmountUnder(n.cfg.Dir))
		if n.kubelet != nil {
			removeKubepodsCgroups()
			n.hostDirs.remove(n.cfg.Dir)
		}
		n.closeErr = errors.Join(errs...)
	})
	return n.closeErr
}

func since(t time.Time) string { return time.Since(t).Round(100 * time.Millisecond).String() }
