package realnode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
)

// guardChain is the iptables chain that keeps pod traffic on the machine:
// a packet from the pod network to anywhere but the pod network is not
// forwarded, whatever the host's forwarding setting.
const guardChain = "ORDINAL-REAL-NODE"

// Host is the machine readied for a real node: the bridge with the gateway
// address, and the forwarding guard. Close removes both.
type Host struct {
	cfg     Config
	gateway net.IP
	cidr    *net.IPNet
	// CgroupV2 tells whether the machine runs the unified hierarchy only.
	CgroupV2 bool
}

// PrepareHost checks that the machine can run a real node and readies its
// network. Checked first, before anything on the machine changes: the
// tools directory is complete, and it and the node's directory are
// nobody else's to change (trust.go); we are root; iptables is there; no
// other Kubernetes node runs on the machine (foreign.go). Then the bridge
// exists and holds the gateway address (so the API server and the DNS can
// listen on it before any pod runs), and the guard chain is in place. The
// first check that fails is the error, with what to do about it.
func PrepareHost(ctx context.Context, cfg Config) (*Host, error) {
	cfg = cfg.withDefaults()
	if err := cfg.checkTools(); err != nil {
		return nil, err
	}
	if err := cfg.checkDir(); err != nil {
		return nil, err
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("real node: a kubelet and containerd need root (run ordinal up --real-node as root)")
	}
	if _, err := exec.LookPath("iptables"); err != nil {
		return nil, errors.New("real node: iptables is not installed (kube-proxy needs it): apt-get install iptables, or run hack/ensure-realnode.sh")
	}
	if err := thisMachine.refuseOtherNodes(ctx); err != nil {
		return nil, err
	}
	gw, err := cfg.Gateway()
	if err != nil {
		return nil, err
	}
	_, cidr, _ := net.ParseCIDR(cfg.PodCIDR)
	h := &Host{cfg: cfg, gateway: gw, cidr: cidr, CgroupV2: cgroupV2()}
	if err := h.bridge(ctx); err != nil {
		return nil, err
	}
	if err := h.guard(ctx); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// Gateway is the bridge's address.
func (h *Host) Gateway() net.IP { return h.gateway }

func cgroupV2() bool {
	_, err := os.Stat("/sys/fs/cgroup/cgroup.controllers")
	return err == nil
}

// bridge creates the bridge with the gateway address, or accepts one that
// exists with it (left by a run that did not stop cleanly).
func (h *Host) bridge(ctx context.Context) error {
	ones, _ := h.cidr.Mask.Size()
	addr := fmt.Sprintf("%s/%d", h.gateway, ones)
	if _, err := net.InterfaceByName(h.cfg.Bridge); err != nil {
		if err := run(ctx, "ip", "link", "add", h.cfg.Bridge, "type", "bridge"); err != nil {
			return fmt.Errorf("real node: creating the bridge %s: %w", h.cfg.Bridge, err)
		}
	}
	out, err := output(ctx, "ip", "-o", "addr", "show", "dev", h.cfg.Bridge)
	if err != nil {
		return fmt.Errorf("real node: reading the bridge %s: %w", h.cfg.Bridge, err)
	}
	if !strings.Contains(out, " "+addr+" ") {
		if err := run(ctx, "ip", "addr", "add", addr, "dev", h.cfg.Bridge); err != nil {
			return fmt.Errorf("real node: giving the bridge %s the address %s: %w", h.cfg.Bridge, addr, err)
		}
	}
	if err := run(ctx, "ip", "link", "set", h.cfg.Bridge, "up"); err != nil {
		return fmt.Errorf("real node: bringing the bridge %s up: %w", h.cfg.Bridge, err)
	}
	return nil
}

// guard (re)creates the guard chain and jumps to it first from FORWARD.
func (h *Host) guard(ctx context.Context) error {
	_ = run(ctx, "iptables", "-w", "-N", guardChain) // exists already after an unclean stop
	steps := [][]string{
		{"-w", "-F", guardChain},
		{"-w", "-A", guardChain, "-s", h.cidr.String(), "!", "-d", h.cidr.String(), "-j", "DROP"},
	}
	if run(ctx, "iptables", "-w", "-C", "FORWARD", "-j", guardChain) != nil {
		steps = append(steps, []string{"-w", "-I", "FORWARD", "1", "-j", guardChain})
	}
	for _, s := range steps {
		if err := run(ctx, "iptables", s...); err != nil {
			return fmt.Errorf("real node: the forwarding guard: %w", err)
		}
	}
	return nil
}

// Close removes the guard and the bridge. It is safe to call more than once.
func (h *Host) Close() {
	ctx := context.Background()
	for run(ctx, "iptables", "-w", "-D", "FORWARD", "-j", guardChain) == nil {
	}
	_ = run(ctx, "iptables", "-w", "-F", guardChain)
	_ = run(ctx, "iptables", "-w", "-X", guardChain)
	if _, err := net.InterfaceByName(h.cfg.Bridge); err == nil {
		_ = run(ctx, "ip", "link", "del", h.cfg.Bridge)
	}
}

func run(ctx context.Context, name string, args ...string) error {
	_, err := output(ctx, name, args...)
	return err
}

// output runs a command and returns its standard output; a failure's error
// carries the command and its standard error.
func output(ctx context.Context, name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
