package realnode

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A machine that runs another Kubernetes node is refused before anything
// on it is touched: the real node's kubelet manages the kubepods cgroups
// with cgroupfs and kills the processes of pod cgroups it does not know,
// and its stop removes the kubelet's and kube-proxy's iptables chains and
// the kubepods cgroups machine-wide. Three signs are looked for, any one
// enough: a node agent's process, a node's socket at its usual path (a
// stopped kubelet or k3s leaves its pods running), and the chains of the
// pod networks such nodes run (flannel and kube-router in k3s, Calico,
// Cilium, Weave). The kubelet's and kube-proxy's own chains are not a
// sign: a real node that did not stop cleanly leaves them, and its next
// stop removes them.

// nodeProcesses are the command names of node agents: kubelets,
// kube-proxies, k3s (which renames itself by role), RKE2, k0s and
// MicroK8s's kubelite.
var nodeProcesses = []string{"kubelet", "kube-proxy", "k3s", "k3s-server", "k3s-agent", "rke2", "k0s", "kubelite"}

// nodeSockets are where nodes' kubelets and runtimes listen by default.
// Not among them: /var/lib/kubelet/device-plugins/kubelet.sock, which
// every kubelet, the real node's too, makes whatever its root directory
// (a kubelet with the default one makes the pod resources socket too).
var nodeSockets = []string{
	"/var/lib/kubelet/pod-resources/kubelet.sock",
	"/run/k3s/containerd/containerd.sock",
	"/run/k0s/containerd.sock",
	"/var/snap/microk8s/common/run/containerd.sock",
}

// podNetworkChains are prefixes of the iptables chains of pod networks
// and network policy agents that nodes run, and the real node does not.
var podNetworkChains = []string{"FLANNEL-", "KUBE-ROUTER-", "KUBE-NWPLCY-", "KUBE-POD-FW-", "cali-", "CILIUM_", "WEAVE"}

// machine is where the signs are read: the process table, the root of
// the sockets' paths, and iptables' rules of a table (`iptables -S`).
type machine struct {
	proc   string
	root   string
	chains func(ctx context.Context, table string) (string, error)
}

// thisMachine reads the signs of the machine the plane runs on.
var thisMachine = machine{
	proc: "/proc",
	root: "/",
	chains: func(ctx context.Context, table string) (string, error) {
		return output(ctx, "iptables", "-w", "-t", table, "-S")
	},
}

// refuseOtherNodes returns an error naming every sign of another node on
// the machine, or nil.
func (m machine) refuseOtherNodes(ctx context.Context) error {
	found := append(m.nodeProcesses(), m.nodeSockets()...)
	chains, err := m.podNetworkChains(ctx)
	if err != nil {
		return fmt.Errorf("real node: looking for another node's iptables chains: %w", err)
	}
	found = append(found, chains...)
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("real node: this machine already runs a Kubernetes node (found %s). The real node's kubelet would kill the processes "+
		"of pod cgroups it does not know under kubepods, and its stop removes the kubelet's and kube-proxy's iptables chains and the kubepods "+
		"cgroups machine-wide: run ordinal up --real-node on a machine or VM of its own, or stop that node and remove what it left "+
		"(k3s-killall.sh for k3s, kubeadm reset for kubeadm)", strings.Join(found, "; "))
}

// nodeProcesses describes each process whose command is a node agent's.
func (m machine) nodeProcesses() []string {
	entries, err := os.ReadDir(m.proc)
	if err != nil {
		return nil
	}
	var found []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		dir := filepath.Join(m.proc, e.Name())
		comm, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil {
			continue // gone since the listing
		}
		exe, _ := os.Readlink(filepath.Join(dir, "exe"))
		name := strings.TrimSpace(string(comm))
		if !slices.Contains(nodeProcesses, name) && (exe == "" || !slices.Contains(nodeProcesses, filepath.Base(exe))) {
			continue
		}
		what := exe
		if what == "" {
			cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
			what = strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
		found = append(found, fmt.Sprintf("process %s (pid %d, %s)", name, pid, what))
	}
	return found
}

// nodeSockets describes each node socket present, and whether something
// answers on it.
func (m machine) nodeSockets() []string {
	var found []string
	for _, s := range nodeSockets {
		path := filepath.Join(m.root, s)
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSocket == 0 {
			continue
		}
		state := "nothing answers on it: a stopped node, whose pods may still run"
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			_ = c.Close()
			state = "answering"
		}
		found = append(found, fmt.Sprintf("socket %s (%s)", path, state))
	}
	return found
}

// podNetworkChains describes the pod networks' chains, by table.
func (m machine) podNetworkChains(ctx context.Context) ([]string, error) {
	var found []string
	for _, table := range []string{"filter", "nat", "mangle"} {
		rules, err := m.chains(ctx, table)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, line := range strings.Split(rules, "\n") {
			name, ok := strings.CutPrefix(strings.TrimSpace(line), "-N ")
			if ok && slices.ContainsFunc(podNetworkChains, func(p string) bool { return strings.HasPrefix(name, p) }) {
				names = append(names, name)
			}
		}
		if len(names) > 0 {
			found = append(found, fmt.Sprintf("iptables chains %s in table %s", strings.Join(names, ", "), table))
		}
	}
	return found, nil
}
