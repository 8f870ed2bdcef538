package realnode

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"k8s.io/component-base/version"
)

// Defaults of the node and its network.
const (
	// DefaultNodeName is the real node's name.
	DefaultNodeName = "ordinal-real-0"
	// DefaultBridge is the pods' bridge on the host.
	DefaultBridge = "ordinal0"
	// DefaultPodCIDR is the pods' network; its first address is the
	// bridge's, the pods' gateway and the address the plane's API server
	// and DNS answer pods on.
	DefaultPodCIDR = "10.88.0.0/16"
	// Taint keeps pods off the real node unless they tolerate it: an image
	// that a simulated node pretends to run has to exist for a real one.
	Taint = "ordinal.dev/real-node"
	// Label marks the real node ("true").
	Label = "ordinal.dev/real-node"
	// Images that the tools directory holds and Start imports. The pause
	// image is the sandbox image containerd is configured with.
	PauseImage   = "localhost/ordinal/pause:v1"
	TestAppImage = "localhost/ordinal/testapp:v1"
)

// Config is what PrepareHost and Start need.
type Config struct {
	// Tools is the directory hack/ensure-realnode.sh fills: bin/ (containerd,
	// containerd-shim-runc-v2, ctr, runc, kubelet, kube-proxy), cni/ (the
	// plugins) and images/ (OCI archives, each imported under
	// localhost/ordinal/NAME with its tag).
	Tools string
	// Dir is the node's state: containerd's root and state, the kubelet's
	// root, CNI state, configuration files and the node's logs.
	Dir string
	// NodeName is the node's name; empty means DefaultNodeName.
	NodeName string
	// Bridge and PodCIDR are the pods' network; empty means the defaults.
	Bridge, PodCIDR string
	// ServiceCIDR is the cluster's service range, routed from pods to the
	// host, where kube-proxy translates it.
	ServiceCIDR string
	// Kubeconfig is the kubelet's (user system:node:NAME), ProxyKubeconfig
	// kube-proxy's (user system:kube-proxy).
	Kubeconfig, ProxyKubeconfig string
	// ClientCAFile is the CA whose client certificates the kubelet accepts
	// (the API server's, for logs and exec).
	ClientCAFile string
	// ServingCert and ServingKey are the kubelet's serving pair.
	ServingCert, ServingKey string
	// ClusterDomain is the DNS zone the kubelet gives pods.
	ClusterDomain string
	// Log receives one-line progress messages; nil discards them.
	Log func(format string, args ...any)
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		c.Log(format, args...)
	}
}

// withDefaults fills the empty fields that have defaults.
func (c Config) withDefaults() Config {
	if c.NodeName == "" {
		c.NodeName = DefaultNodeName
	}
	if c.Bridge == "" {
		c.Bridge = DefaultBridge
	}
	if c.PodCIDR == "" {
		c.PodCIDR = DefaultPodCIDR
	}
	if c.ClusterDomain == "" {
		c.ClusterDomain = "cluster.local"
	}
	return c
}

// Gateway is the first address of the pod network: the bridge's, where
// pods reach the host.
func (c Config) Gateway() (net.IP, error) {
	_, n, err := net.ParseCIDR(c.withDefaults().PodCIDR)
	if err != nil {
		return nil, fmt.Errorf("pod CIDR: %w", err)
	}
	ip := n.IP.To4()
	if ip == nil {
		return nil, fmt.Errorf("pod CIDR %s is not IPv4", n)
	}
	gw := make(net.IP, 4)
	copy(gw, ip)
	gw[3]++
	return gw, nil
}

// Binaries the tools directory must hold, under bin/ and cni/.
var (
	binaries = []string{"containerd", "containerd-shim-runc-v2", "ctr", "runc", "kubelet", "kube-proxy"}
	plugins  = []string{"bridge", "host-local", "loopback", "portmap"}
)

func (c Config) bin(name string) string { return filepath.Join(c.Tools, "bin", name) }

func (c Config) path(elem ...string) string {
	return filepath.Join(append([]string{c.Dir}, elem...)...)
}

// ToolsEnv is the variable that, when set, names the tools directory for hack/ensure-realnode.sh
// and DefaultTools alike.
const ToolsEnv = "ORDINAL_REALNODE_TOOLS"

// DefaultTools is where hack/ensure-realnode.sh puts the tools for this
// binary's Kubernetes version: $ORDINAL_REALNODE_TOOLS, else
// ${XDG_CACHE_HOME:-~/.cache}/ordinal/realnode/VERSION.
func DefaultTools() string {
	if d := os.Getenv(ToolsEnv); d != "" {
		return d
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		// Never a shared directory such as /tmp: the real node runs the
		// tools as root. Without a home, --real-node-tools is required.
		home := os.Getenv("HOME")
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "ordinal", "realnode", kubernetesVersion())
}

// kubernetesVersion is the version of the k8s.io/kubernetes module this
// binary is built with, the version whose kubelet the tools hold: from the
// build information, else (a test binary has none) from the version
// hack/ldflags.sh stamps.
func kubernetesVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "k8s.io/kubernetes" {
				return m.Version
			}
		}
	}
	if v := version.Get().GitVersion; strings.HasPrefix(v, "v1.") {
		return v
	}
	return "unknown"
}

// NodeNameOrDefault is NodeName, or DefaultNodeName when empty.
func (c Config) NodeNameOrDefault() string { return c.withDefaults().NodeName }
