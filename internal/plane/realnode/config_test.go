package realnode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTheGatewayIsThePodNetworksFirstAddress(t *testing.T) {
	for cidr, want := range map[string]string{"": "10.88.0.1", "10.200.0.0/24": "10.200.0.1"} {
		gw, err := Config{PodCIDR: cidr}.Gateway()
		if err != nil || gw.String() != want {
			t.Errorf("Gateway of %q = %v, %v; want %s", cidr, gw, err, want)
		}
	}
	if _, err := (Config{PodCIDR: "fd00::/64"}).Gateway(); err == nil {
		t.Error("an IPv6 pod network was accepted")
	}
}

// Pods get a route to the service range and none beyond: a pod reaches the
// host and other pods, never the machine's outside network.
func TestPodsAreRoutedToTheServiceRangeOnly(t *testing.T) {
	c := Config{Dir: "/x", ServiceCIDR: "10.96.0.0/16"}.withDefaults()
	gw, _ := c.Gateway()
	var conf struct {
		Plugins []struct {
			Type      string `json:"type"`
			IsGateway bool   `json:"isGateway"`
			IPMasq    bool   `json:"ipMasq"`
			IsDefault bool   `json:"isDefaultGateway"`
			IPAM      struct {
				Routes []map[string]string `json:"routes"`
			} `json:"ipam"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal([]byte(c.cniConfig(gw)), &conf); err != nil {
		t.Fatal(err)
	}
	b := conf.Plugins[0]
	if b.Type != "bridge" || !b.IsGateway || b.IPMasq || b.IsDefault {
		t.Errorf("bridge plugin %+v: want a gateway bridge without masquerade or default route", b)
	}
	if len(b.IPAM.Routes) != 1 || b.IPAM.Routes[0]["dst"] != "10.96.0.0/16" {
		t.Errorf("routes %v, want the service range only", b.IPAM.Routes)
	}
}

func TestAnIncompleteToolsDirectoryNamesWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "containerd"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	err := Config{Tools: dir}.checkTools()
	if err == nil {
		t.Fatal("an incomplete tools directory was accepted")
	}
	for _, want := range []string{"bin/kubelet", "bin/runc", "cni/bridge", "hack/ensure-realnode.sh"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v does not mention %s", err, want)
		}
	}
	if strings.Contains(err.Error(), "bin/containerd ") {
		t.Errorf("%v names bin/containerd, which is there", err)
	}
}

// The kubelet's API listens on the gateway only, with client certificates
// and webhook authorization, and the node registers tainted.
func TestTheKubeletConfigurationIsLockedDown(t *testing.T) {
	c := Config{Dir: "/x", ServiceCIDR: "10.96.0.0/16", ClientCAFile: "/ca.crt"}.withDefaults()
	gw, _ := c.Gateway()
	got := c.kubeletConfig(gw)
	for _, want := range []string{`address: "10.88.0.1"`, "readOnlyPort: 0", "anonymous:\n    enabled: false", "mode: Webhook",
		`clientCAFile: "/ca.crt"`, `clusterDNS: ["10.88.0.1"]`, "failCgroupV1: false", `key: "ordinal.dev/real-node"`} {
		if !strings.Contains(got, want) {
			t.Errorf("kubelet configuration lacks %q:\n%s", want, got)
		}
	}
}

// completeTools is a tools directory with every binary and plugin, mode
// 0755 throughout.
func completeTools(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"bin", "cni", "images"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range binaries {
		if err := os.WriteFile(filepath.Join(dir, "bin", b), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range plugins {
		if err := os.WriteFile(filepath.Join(dir, "cni", p), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The real node runs the tools as root: a directory or binary others may
// write (or that another user owns) could hand root to whoever changes
// it, so it is refused by name; none in a shared directory is looked for
// when there is no home.
func TestToolsOthersMayWriteAreRefused(t *testing.T) {
	dir := completeTools(t)
	if err := (Config{Tools: dir}).checkTools(); err != nil {
		t.Fatalf("a private complete tools directory: %v", err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "bin"), filepath.Join(dir, "bin", "kubelet"), filepath.Join(dir, "cni", "bridge")} {
		if err := os.Chmod(p, 0o775); err != nil {
			t.Fatal(err)
		}
		err := Config{Tools: dir}.checkTools()
		if err == nil || !strings.Contains(err.Error(), p+" is writable by its group or others (mode 0775)") {
			t.Errorf("%s group-writable: %v", p, err)
		}
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(filepath.Join(dir, "bin", "runc"), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := (Config{Tools: dir}).checkTools(); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Errorf("a runc of another user: %v", err)
		}
	}
	t.Setenv(ToolsEnv, "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if got := DefaultTools(); got != "" {
		t.Errorf("without a home the default tools directory is %q, want none", got)
	}
	if err := (Config{Tools: DefaultTools()}).checkTools(); err == nil || !strings.Contains(err.Error(), "pass --real-node-tools") {
		t.Errorf("no tools directory: %v", err)
	}
}
