package realnode

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// Paths of the node's state under Config.Dir.
func (c Config) socket() string         { return c.path("containerd", "containerd.sock") }
func (c Config) containerdConf() string { return c.path("containerd", "config.toml") }
func (c Config) cniConfDir() string     { return c.path("cni", "net.d") }
func (c Config) kubeletConf() string    { return c.path("kubelet", "config.yaml") }
func (c Config) proxyConf() string      { return c.path("kube-proxy.yaml") }
func (c Config) logPath(name string) string {
	return c.path("logs", name+".log")
}

// maxSocketPath is what a unix socket's path may hold (sun_path, 108 bytes
// with its terminating zero), less the ".ttrpc" of containerd's second one.
const maxSocketPath = 100

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o600)
}

// containerdConfig is containerd 2.4's configuration (version 4): state under
// the node's directory, the overlayfs snapshotter, runc from the tools
// directory with cgroupfs, the CNI plugins and configuration of the node,
// our pause image as the sandbox image, and oom_score_adj values clamped
// to containerd's own (a machine may refuse to lower them, as a container
// or sandboxed machine does).
func (c Config) containerdConfig() string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`version = 4
root = %s
state = %s
imports = []
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.blockfile", "io.containerd.snapshotter.v1.erofs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[plugins."io.containerd.server.v1.grpc"]
  address = %s

[plugins."io.containerd.server.v1.ttrpc"]
  address = %s

[plugins."io.containerd.internal.v1.opt"]
  path = %s

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = %s

[plugins."io.containerd.cri.v1.runtime"]
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = %s
        SystemdCgroup = false
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = [%s]
    conf_dir = %s

[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
`, q(c.path("containerd", "root")), q(c.path("containerd", "state")), q(c.socket()), q(c.socket()+".ttrpc"),
		q(c.path("containerd", "opt")), q(PauseImage), q(c.bin("runc")), q(filepath.Join(c.Tools, "cni")), q(c.cniConfDir()))
}

// cniConfig is the pods' network: a bridge whose address is the gateway,
// addresses from host-local, a route to the service range only (no default
// route: pods reach the host and each other, nothing beyond), and portmap
// for hostPort.
func (c Config) cniConfig(gateway net.IP) string {
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       "ordinal",
		"plugins": []any{
			map[string]any{
				"type": "bridge", "bridge": c.Bridge, "isGateway": true, "ipMasq": false, "hairpinMode": true,
				"ipam": map[string]any{
					"type":    "host-local",
					"ranges":  [][]map[string]string{{{"subnet": c.PodCIDR, "gateway": gateway.String()}}},
					"routes":  []map[string]string{{"dst": c.ServiceCIDR}},
					"dataDir": c.path("cni", "ipam"),
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	raw, _ := json.MarshalIndent(conf, "", "  ")
	return string(raw)
}

// kubeletConfig is the kubelet's configuration: containerd over CRI,
// cgroupfs, cgroup v1 allowed, the API only on the gateway address with
// client certificates and webhook authorization, the plane's DNS as the
// cluster's, no host resolv.conf, and image garbage collection off (the
// images it would collect cannot be pulled again here).
func (c Config) kubeletConfig(gateway net.IP) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: %s
address: %s
port: 10250
readOnlyPort: 0
healthzPort: 0
tlsCertFile: %s
tlsPrivateKeyFile: %s
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: %s
authorization:
  mode: Webhook
clusterDNS: [%s]
clusterDomain: %s
resolvConf: ""
podLogsDir: %s
volumePluginDir: %s
failSwapOn: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: 100Mi
  nodefs.available: 1%%
  imagefs.available: 1%%
  nodefs.inodesFree: 1%%
registerWithTaints:
- key: %s
  value: "true"
  effect: NoSchedule
`, q("unix://"+c.socket()), q(gateway.String()), q(c.ServingCert), q(c.ServingKey), q(c.ClientCAFile),
		q(gateway.String()), q(c.ClusterDomain), q(c.path("pod-logs")), q(c.path("kubelet", "volume-plugins")), q(Taint))
}

func (c Config) kubeletArgs(gateway net.IP) []string {
	return []string{
		"--config=" + c.kubeletConf(),
		"--kubeconfig=" + c.Kubeconfig,
		"--root-dir=" + c.path("kubelet", "root"),
		"--cert-dir=" + c.path("kubelet", "pki"),
		"--hostname-override=" + c.NodeName,
		"--node-ip=" + gateway.String(),
		"--node-labels=" + Label + "=true",
		"--v=2",
	}
}

// proxyConfig is kube-proxy's: iptables mode, node ports on the gateway
// address only, conntrack settings left as the machine has them, metrics
// and health on their usual ports, on loopback only.
func (c Config) proxyConfig(gateway net.IP) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection:
  kubeconfig: %s
hostnameOverride: %s
clusterCIDR: %s
bindAddress: %s
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: [%s]
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
iptables:
  localhostNodePorts: false
`, q(c.ProxyKubeconfig), q(c.NodeName), q(c.PodCIDR), q(gateway.String()), q(gateway.String()+"/32"))
}

// env is the children's environment: the tools' bin/ first on PATH, so
// containerd finds its shim and the shim runc.
func (c Config) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+filepath.Join(c.Tools, "bin")+":"+os.Getenv("PATH"))
}
