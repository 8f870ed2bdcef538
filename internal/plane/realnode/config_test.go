package realnode

import (
	"encoding/json"
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
