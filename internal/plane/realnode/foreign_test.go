package realnode

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeProcess adds a process to a fake process table: its command name,
// command line and, when exe is not empty, its executable's link.
func fakeProcess(t *testing.T, proc, pid, comm, cmdline, exe string) {
	t.Helper()
	dir := filepath.Join(proc, pid)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cmdline"), []byte(strings.ReplaceAll(cmdline, " ", "\x00")+"\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if exe != "" {
		if err := os.Symlink(exe, filepath.Join(dir, "exe")); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeSocket makes a Unix socket at path below root; listening, something
// answers on it, else it is left as a stopped program leaves its socket.
func fakeSocket(t *testing.T, root, path string, listening bool) {
	t.Helper()
	full := filepath.Join(root, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", full)
	if err != nil {
		t.Fatal(err)
	}
	if listening {
		t.Cleanup(func() { _ = l.Close() })
		return
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = l.Close()
}

// chainsOf answers `iptables -S` with rules by table.
func chainsOf(rules map[string]string) func(context.Context, string) (string, error) {
	return func(_ context.Context, table string) (string, error) {
		return "-P INPUT ACCEPT\n-P FORWARD ACCEPT\n-P OUTPUT ACCEPT\n" + rules[table], nil
	}
}

// emptyMachine is a machine with a container engine and no node. Its
// directory's path is short: a Unix socket's path may not be longer than
// 107 bytes, and t.TempDir's hold the test's name.
func emptyMachine(t *testing.T) machine {
	dir, err := os.MkdirTemp("", "rn")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	m := machine{proc: filepath.Join(dir, "proc"), root: filepath.Join(dir, "root"), chains: chainsOf(nil)}
	fakeProcess(t, m.proc, "1", "systemd", "/sbin/init", "/usr/lib/systemd/systemd")
	fakeProcess(t, m.proc, "2", "kthreadd", "", "")
	fakeProcess(t, m.proc, "300", "containerd", "/usr/bin/containerd", "/usr/bin/containerd")
	fakeProcess(t, m.proc, "301", "dockerd", "/usr/bin/dockerd -H fd://", "/usr/bin/dockerd")
	if err := os.MkdirAll(filepath.Join(m.proc, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	fakeSocket(t, m.root, "/run/containerd/containerd.sock", true)
	return m
}

// The device plugin socket that a real node's kubelet left (every kubelet
// makes it in /var/lib/kubelet, whatever its root directory) is no sign
// of another node.
func TestTheDevicePluginSocketOfAnEarlierRealNodeIsNoSign(t *testing.T) {
	m := emptyMachine(t)
	fakeSocket(t, m.root, "/var/lib/kubelet/device-plugins/kubelet.sock", false)
	if err := m.refuseOtherNodes(context.Background()); err != nil {
		t.Errorf("%v", err)
	}
}

// A machine with no other node, a container engine, and what a real node
// that did not stop cleanly leaves (the kubelet's and kube-proxy's chains,
// the guard chain) is accepted.
func TestAMachineWithoutAnotherNodeIsAccepted(t *testing.T) {
	m := emptyMachine(t)
	m.chains = chainsOf(map[string]string{
		"filter": "-N DOCKER\n-N KUBE-FIREWALL\n-N KUBE-KUBELET-CANARY\n-N KUBE-SERVICES\n-N ORDINAL-REAL-NODE\n-A FORWARD -j ORDINAL-REAL-NODE\n",
		"nat":    "-N KUBE-POSTROUTING\n-N KUBE-SVC-NPX46M4PTMTKRN6Y\n-N CNI-HOSTPORT-DNAT\n",
	})
	if err := m.refuseOtherNodes(context.Background()); err != nil {
		t.Errorf("%v", err)
	}
}

// Each sign of another node is enough, and the refusal names it.
func TestAMachineThatRunsAnotherNodeIsRefusedNamingWhatWasFound(t *testing.T) {
	for _, tc := range []struct {
		name string
		add  func(t *testing.T, m *machine)
		want []string
	}{
		{"a kubelet", func(t *testing.T, m *machine) {
			fakeProcess(t, m.proc, "812", "kubelet", "/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml", "/usr/bin/kubelet")
		}, []string{"process kubelet (pid 812, /usr/bin/kubelet)"}},
		{"k3s, renamed by role", func(t *testing.T, m *machine) {
			fakeProcess(t, m.proc, "77", "k3s-server", "/usr/local/bin/k3s server", "/usr/local/bin/k3s")
		}, []string{"process k3s-server (pid 77, /usr/local/bin/k3s)"}},
		{"a kube-proxy whose executable cannot be read", func(t *testing.T, m *machine) {
			fakeProcess(t, m.proc, "90", "kube-proxy", "/usr/local/bin/kube-proxy --config=/var/lib/kube-proxy/config.conf", "")
		}, []string{"process kube-proxy (pid 90, /usr/local/bin/kube-proxy --config=/var/lib/kube-proxy/config.conf)"}},
		{"a kubelet's socket, answering", func(t *testing.T, m *machine) {
			fakeSocket(t, m.root, "/var/lib/kubelet/pod-resources/kubelet.sock", true)
		}, []string{"/var/lib/kubelet/pod-resources/kubelet.sock (answering)"}},
		{"a stopped k3s's runtime socket", func(t *testing.T, m *machine) {
			fakeSocket(t, m.root, "/run/k3s/containerd/containerd.sock", false)
		}, []string{"/run/k3s/containerd/containerd.sock (nothing answers on it: a stopped node, whose pods may still run)"}},
		{"k3s's flannel and kube-router chains", func(t *testing.T, m *machine) {
			m.chains = chainsOf(map[string]string{
				"filter": "-N FLANNEL-FWD\n-N KUBE-ROUTER-INPUT\n-N KUBE-FIREWALL\n-A FORWARD -j FLANNEL-FWD\n",
				"nat":    "-N FLANNEL-POSTRTG\n",
			})
		}, []string{"iptables chains FLANNEL-FWD, KUBE-ROUTER-INPUT in table filter", "iptables chains FLANNEL-POSTRTG in table nat"}},
		{"Calico's chains", func(t *testing.T, m *machine) {
			m.chains = chainsOf(map[string]string{"mangle": "-N cali-PREROUTING\n"})
		}, []string{"iptables chains cali-PREROUTING in table mangle"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := emptyMachine(t)
			tc.add(t, &m)
			err := m.refuseOtherNodes(context.Background())
			if err == nil {
				t.Fatal("accepted")
			}
			for _, want := range append(tc.want, "this machine already runs a Kubernetes node", "a machine or VM of its own") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%v\ndoes not say %q", err, want)
				}
			}
			for _, sign := range []string{"KUBE-FIREWALL", filepath.Join(m.root, "run", "containerd"), "pid 300", "dockerd"} {
				if strings.Contains(err.Error(), sign) {
					t.Errorf("%v\nnames %s, no sign of another node", err, sign)
				}
			}
		})
	}
}

// iptables that cannot list the rules leaves the machine unjudged: an
// error, not an acceptance.
func TestRulesThatCannotBeReadAreAnError(t *testing.T) {
	m := emptyMachine(t)
	m.chains = func(context.Context, string) (string, error) { return "", errors.New("iptables: Permission denied") }
	if err := m.refuseOtherNodes(context.Background()); err == nil || !strings.Contains(err.Error(), "Permission denied") {
		t.Errorf("%v, want the listing's error", err)
	}
}
