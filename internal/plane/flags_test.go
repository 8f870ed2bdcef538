package plane

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/ordinal-sh/ordinal/internal/controller"
)

// `ordinal up` takes the controller's limit and hook flags, with the
// controller's own defaults but for loopback allowed to hooks, and passes
// them to the controller it runs.
func TestUpTakesTheControllersLimitAndHookFlags(t *testing.T) {
	cfg := NewConfig()
	want := controller.NewConfig()
	want.HookAllowCIDRs = []string{"127.0.0.0/8", "::1/128"}
	if diff := cmp.Diff(want, cfg.Controller); diff != "" {
		t.Errorf("the plane's controller defaults (-want +got):\n%s", diff)
	}
	fs := pflag.NewFlagSet("up", pflag.ContinueOnError)
	cfg.AddFlags(fs)
	if err := fs.Parse([]string{"--qps=0", "--burst=0", "--workers=2", "--status-hold-under-load=5s", "--hook-allow-cidrs=", "--hook-token-service-account=default/hooks",
		"--feature-gates=StatefulSetRecreateStrategy=true"}); err != nil {
		t.Fatal(err)
	}
	if !cfg.FeatureGates["StatefulSetRecreateStrategy"] {
		t.Errorf("--feature-gates did not reach the plane's gates: %v", cfg.FeatureGates)
	}
	if c := cfg.Controller; c.QPS != 0 || c.Burst != 0 || c.Workers != 2 || c.StatusHold.String() != "5s" || len(c.HookAllowCIDRs) != 0 || c.HookTokenServiceAccount != "default/hooks" {
		t.Errorf("parsed controller config %+v", c)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("an unthrottled controller refused: %v", err)
	}
	for _, name := range []string{"kubeconfig", "namespace"} {
		if fs.Lookup(name) != nil {
			t.Errorf("`ordinal up` has --%s, which only a controller attached to a cluster uses", name)
		}
	}
}

// A real node gives its pods the plane's DNS, so it cannot run without it;
// a default plane has no real node.
func TestARealNodeNeedsTheClusterDNS(t *testing.T) {
	cfg := NewConfig()
	if cfg.RealNode {
		t.Fatal("a real node is on by default; it must be asked for")
	}
	fs := pflag.NewFlagSet("up", pflag.ContinueOnError)
	cfg.AddFlags(fs)
	if err := fs.Parse([]string{"--real-node", "--dns-address="}); err != nil {
		t.Fatal(err)
	}
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "--real-node needs the cluster DNS") {
		t.Errorf("--real-node without DNS: %v", err)
	}
}
