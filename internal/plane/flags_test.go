package plane

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/ordinal-sh/ordinal/internal/controller"
)

// `ordinal up` takes the controller's limit flags, with the controller's
// own defaults, and passes them to the controller it runs.
func TestUpTakesTheControllersLimitFlags(t *testing.T) {
	cfg := NewConfig()
	if cfg.Controller != controller.NewConfig() {
		t.Errorf("the plane's controller defaults %+v differ from the controller's %+v", cfg.Controller, controller.NewConfig())
	}
	fs := pflag.NewFlagSet("up", pflag.ContinueOnError)
	cfg.AddFlags(fs)
	if err := fs.Parse([]string{"--qps=0", "--burst=0", "--workers=2", "--status-hold-under-load=5s"}); err != nil {
		t.Fatal(err)
	}
	if c := cfg.Controller; c.QPS != 0 || c.Burst != 0 || c.Workers != 2 || c.StatusHold.String() != "5s" {
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
