package controller

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/internal/podcall"
)

func TestFlagsAndDefaultsAreOneDefinition(t *testing.T) {
	cfg := NewConfig()
	fs := pflag.NewFlagSet("controller", pflag.ContinueOnError)
	cfg.AddFlags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(NewConfig(), cfg); diff != "" {
		t.Errorf("parsing no flags changed the defaults (-want +got):\n%s", diff)
	}
	want := Config{Kubeconfig: "kc", QPS: 7.5, Burst: 9, Workers: 2, StatusHold: 4 * time.Second, Namespace: "ns", ReadNodes: true, AppsV1: false,
		HookAllowCIDRs: []string{"10.0.0.0/8", "fd00::/8"}, HookProxyFromEnvironment: true, HookTokenServiceAccount: "ordinal-system/ordinal-controller",
		FeatureGates: map[string]bool{GateRecreate: false}, RoleProbeCalls: 8, RoleProbeWriteQPS: 2.5, RoleProbeWriteBurst: 4, NodeLossQuarantine: 90 * time.Second,
		APICompression: true}
	if err := fs.Parse([]string{"--kubeconfig=kc", "--api-compression", "--qps=7.5", "--burst=9", "--workers=2", "--status-hold-under-load=4s", "--namespace=ns", "--read-nodes", "--manage-apps-v1=false",
		"--node-loss-quarantine=90s",
		"--hook-allow-cidrs=10.0.0.0/8,fd00::/8", "--hook-proxy-from-environment", "--hook-token-service-account=ordinal-system/ordinal-controller",
		"--feature-gates=StatefulSetRecreateStrategy=false", "--role-probe-calls=8", "--role-probe-write-qps=2.5", "--role-probe-write-burst=4"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("parsed flags (-want +got):\n%s", diff)
	}
	opts := cfg.Options(nil, "")
	if !opts.Nodes || opts.Namespace != "ns" || opts.NodeLossQuarantine != 90*time.Second {
		t.Errorf("--read-nodes with --namespace gave options reading nodes %v in namespace %q, quarantine %s", opts.Nodes, opts.Namespace, opts.NodeLossQuarantine)
	}
	if want := (podcall.RoleProbeOptions{Calls: 8, WriteQPS: 2.5, WriteBurst: 4}); opts.RoleProbe != want {
		t.Errorf("role probe options %+v, want %+v", opts.RoleProbe, want)
	}
	limits := pflag.NewFlagSet("up", pflag.ContinueOnError)
	cfg.AddLimitFlags(limits)
	if limits.Lookup("kubeconfig") != nil || limits.Lookup("namespace") != nil || limits.Lookup("qps") == nil {
		t.Error("the limit flags are not exactly --qps, --burst, --workers and --status-hold-under-load")
	}
}

func TestValidateNamesEveryBadField(t *testing.T) {
	cfg := Config{QPS: -1, Burst: 1, Workers: 0, StatusHold: -time.Second, HookAllowCIDRs: []string{"10.0.0.0/8", "10.0.0.1"}, HookTokenServiceAccount: "ordinal-controller",
		RoleProbeCalls: 0, RoleProbeWriteQPS: -1, RoleProbeWriteBurst: 1}
	err := cfg.Validate()
	for _, want := range []string{"--qps and --burst must not be negative", "--workers must be at least 1", "--status-hold-under-load must not be negative",
		"--role-probe-calls must be at least 1, got 0", "--role-probe-write-qps must be positive, got -1",
		"--role-probe-write-burst must be at least 2 (a patch and its event), got 1",
		"--node-loss-quarantine must be at least 1s, got 0s",
		`--hook-allow-cidrs: "10.0.0.1" is not a CIDR such as 10.0.0.0/8 or fd00::/8`,
		`--hook-token-service-account "ordinal-controller" is not namespace/name of a ServiceAccount, e.g. ordinal-system/ordinal-controller`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	zero := NewConfig()
	zero.QPS, zero.Burst = 0, 0
	if err := zero.Validate(); err != nil {
		t.Errorf("QPS 0 (unthrottled) refused: %v", err)
	}
}

// client-go reads QPS 0 as "use the default of 5" and only a negative QPS
// as "no limiter", so Limit must not pass 0 through.
func TestQPSZeroBuildsAClientWithNoRateLimiter(t *testing.T) {
	for _, tc := range []struct {
		qps         float32
		burst       int
		wantLimiter bool
	}{
		{20, 30, true},
		{0, 0, false},
		{0, 30, false},
	} {
		cfg := NewConfig()
		cfg.QPS, cfg.Burst = tc.qps, tc.burst
		rc := &rest.Config{Host: "https://127.0.0.1:1"}
		cfg.Limit(rc)
		limiter := Throttle(rc)
		client, err := kubernetes.NewForConfig(rc)
		if err != nil {
			t.Fatal(err)
		}
		rl := client.CoreV1().RESTClient().GetRateLimiter()
		if (rl != nil) != tc.wantLimiter || (limiter != nil) != tc.wantLimiter {
			t.Errorf("QPS %g burst %d: rate limiter %v, Throttle %v; want a limiter: %t", tc.qps, tc.burst, rl, limiter, tc.wantLimiter)
		}
		if tc.wantLimiter && rl.QPS() != tc.qps {
			t.Errorf("QPS %g: the client's limiter runs at %g", tc.qps, rl.QPS())
		}
	}
}

// The controller's client asks for uncompressed responses, as
// kube-controller-manager's does, unless --api-compression says otherwise.
func TestTheClientAsksForGzipOnlyWithAPICompression(t *testing.T) {
	got := make(chan string, 1)
	// Over plain HTTP client-go uses http.DefaultTransport, which ignores
	// the setting; every real API server speaks TLS.
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Accept-Encoding")
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer srv.Close()
	for _, compress := range []bool{false, true} {
		cfg := NewConfig()
		cfg.APICompression = compress
		rc := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
		cfg.Client(rc)
		client, err := kubernetes.NewForConfig(rc)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = client.CoreV1().Pods("ns").Get(t.Context(), "p", metav1.GetOptions{})
		if enc := <-got; strings.Contains(enc, "gzip") != compress {
			t.Errorf("--api-compression=%t: the client sent Accept-Encoding %q", compress, enc)
		}
	}
}

// Under a QPS limit a set's batch writes at most --burst pods at once;
// unthrottled, a whole batch, as upstream.
func TestTheBurstBoundsABatchOnlyUnderAQPSLimit(t *testing.T) {
	for _, tc := range []struct {
		qps   float32
		burst int
		want  int
	}{{20, 30, 30}, {5, 0, 1}, {0, 30, 0}} {
		cfg := NewConfig()
		cfg.QPS, cfg.Burst = tc.qps, tc.burst
		opts := cfg.Options(nil, "")
		if got := opts.BurstInFlight; got != tc.want {
			t.Errorf("--qps %g --burst %d: %d pods of a batch at once, want %d", tc.qps, tc.burst, got, tc.want)
		}
		if got, want := opts.CreateLimit, CreateLimit(tc.qps, tc.burst); got != want || (tc.qps > 0) != (got > 0) {
			t.Errorf("--qps %g --burst %d: a plan builds at most %d missing pods, want %d (none unthrottled)", tc.qps, tc.burst, got, want)
		}
	}
}

// The hook flags reach Run's options: the allow list as ranges, the proxy
// switch, the token's ServiceAccount, and the API server's URL.
func TestHookFlagsBecomeHookOptions(t *testing.T) {
	cfg := NewConfig()
	cfg.HookAllowCIDRs = []string{"127.0.0.1/8", "fd00::/8"}
	cfg.HookProxyFromEnvironment, cfg.HookTokenServiceAccount = true, "ordinal-system/ordinal-controller"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	got := cfg.Options(nil, "https://10.96.0.1:443").Hooks
	want := podcall.HookOptions{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}, ProxyFromEnvironment: true,
		TokenServiceAccount: types.NamespacedName{Namespace: "ordinal-system", Name: "ordinal-controller"}, APIServer: "https://10.96.0.1:443"}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Errorf("hook options (-want +got):\n%s", diff)
	}
	def := NewConfig()
	if def := def.Options(nil, "").Hooks; len(def.AllowCIDRs) != 0 || def.ProxyFromEnvironment || def.TokenServiceAccount.Name != "" {
		t.Errorf("the defaults allow %v, proxy %v, token %v; want nothing allowed, no proxy, no token", def.AllowCIDRs, def.ProxyFromEnvironment, def.TokenServiceAccount)
	}
}

func TestTheRecreateGateIsOnUnlessTurnedOff(t *testing.T) {
	for _, tc := range []struct {
		gates   map[string]bool
		gateOff bool
	}{
		{nil, false},
		{map[string]bool{GateRecreate: true}, false},
		{map[string]bool{GateRecreate: false}, true},
	} {
		cfg := NewConfig()
		cfg.FeatureGates = tc.gates
		if got := cfg.Options(nil, "").Release.RecreateGateOff; got != tc.gateOff {
			t.Errorf("gates %v: RecreateGateOff %v, want %v", tc.gates, got, tc.gateOff)
		}
	}
	cfg := NewConfig()
	cfg.FeatureGates = map[string]bool{"MaxUnavailableStatefulSet": true}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), `no gate "MaxUnavailableStatefulSet"`) {
		t.Errorf("Validate() = %v, want an error naming the gate the controller does not have", err)
	}
}
