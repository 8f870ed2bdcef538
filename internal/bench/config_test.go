package bench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/bench/contender"
)

func TestValidateNamesAContenderWhoseBinaryIsMissing(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{OrdinalBinary, FloorBinary} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := NewConfig()
	cfg.Binary = "/bin/true"
	cfg.Commands = LeanCommands(dir)
	cfg.Contenders = []string{ContenderOrdinal, ContenderFloor}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("with both binaries present: %v", err)
	}
	cfg.Contenders = []string{ContenderOrdinal, ContenderBuiltin}
	err := cfg.Validate()
	if err == nil {
		t.Fatal("no error with ordinal-bench-builtin missing")
	}
	want := "contender builtin: stat " + filepath.Join(dir, BuiltinBinary) + ": no such file or directory (hack/build.sh builds every contender into bin/)"
	if err.Error() != want {
		t.Errorf("error:\n got %s\nwant %s", err, want)
	}
}

// The before contenders run only the build --before-binary names, and
// only when asked for.
func TestTheBeforeContendersRunTheOtherBuild(t *testing.T) {
	dir, other := t.TempDir(), filepath.Join(t.TempDir(), OrdinalBinary)
	for _, path := range []string{filepath.Join(dir, OrdinalBinary), other} {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := NewConfig()
	for _, c := range BeforeContenders {
		if slices.Contains(cfg.Contenders, c) {
			t.Errorf("%s runs by default", c)
		}
	}
	cfg.Binary = "/bin/true"
	cfg.Commands = WithBefore(LeanCommands(dir), "")
	cfg.Contenders = []string{ContenderOrdinalBefore, ContenderOrdinal}
	err := cfg.Validate()
	if want := "contender ordinal-before: needs --before-binary, the other build of ordinal-controller to compare with"; err == nil || err.Error() != want {
		t.Errorf("without --before-binary: got %v, want %s", err, want)
	}
	cfg.Commands = WithBefore(LeanCommands(dir), other)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("with --before-binary: %v", err)
	}
	cfg.Contenders = []string{ContenderOrdinal}
	err = cfg.Validate()
	if want := "--before-binary names another build, but --contenders names neither ordinal-before nor ordinal-osts-before"; err == nil || err.Error() != want {
		t.Errorf("--before-binary without a before contender: got %v, want %s", err, want)
	}
	for _, c := range BeforeContenders {
		if got := cfg.Commands[c].Binary; got != other {
			t.Errorf("%s runs %s, want %s", c, got, other)
		}
	}
	if got := cfg.Commands[ContenderOrdinal].Binary; got != filepath.Join(dir, OrdinalBinary) {
		t.Errorf("ordinal runs %s, want this build's", got)
	}
}

func TestValidateRefusesAContenderBinaryThatIsNotExecutable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FloorBinary), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := NewConfig()
	cfg.Binary = "/bin/true"
	cfg.Commands = LeanCommands(dir)
	cfg.Contenders = []string{ContenderFloor}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "is not an executable file") {
		t.Errorf("got %v, want an error saying the floor's binary is not executable", err)
	}
}

func TestContenderCommandsShareTheFlagsAfterTheirOwnArguments(t *testing.T) {
	lean := LeanCommands("/opt/bin")
	got := append(lean[ContenderBuiltin].Args, contenderArgs(ContenderBuiltin, "kc", "stats", Limit{QPS: 20, Burst: 30}, 5)...)
	want := "--max-unavailable-gate=true --kubeconfig kc --qps 20 --burst 30 --workers 5 --leader-elect=false --metrics-address="
	if strings.Join(got, " ") != want || lean[ContenderBuiltin].Binary != "/opt/bin/"+BuiltinBinary {
		t.Errorf("builtin runs %s %v, want /opt/bin/%s %s", lean[ContenderBuiltin].Binary, got, BuiltinBinary, want)
	}
	floor := contenderArgs(ContenderFloor, "kc", "stats", Limit{}, 1)
	if !strings.Contains(strings.Join(floor, " "), "--qps 0 --burst 0") || floor[len(floor)-1] != "stats" {
		t.Errorf("unthrottled floor args %v: want --qps 0 (unthrottled for every contender) and the stats file last", floor)
	}
}

// Every contender parses the harness's command line with contender.Flags;
// an unthrottled setting (--qps 0) gives a client with no rate limiter.
func TestTheHarnessCommandLineParsesAsAContendersFlags(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit       Limit
		wantLimiter bool
	}{
		{Limit{QPS: 20, Burst: 30}, true},
		{Limit{}, false},
	} {
		fs := pflag.NewFlagSet("contender", pflag.ContinueOnError)
		cfg := contender.Flags(fs)
		if err := fs.Parse(contenderArgs(ContenderOrdinal, kubeconfig, "", tc.limit, 3)); err != nil {
			t.Fatalf("%+v: %v", tc.limit, err)
		}
		rc, err := contender.RESTConfig(cfg, "test")
		if err != nil {
			t.Fatalf("%+v: %v", tc.limit, err)
		}
		client, err := kubernetes.NewForConfig(rc)
		if err != nil {
			t.Fatal(err)
		}
		if got := client.CoreV1().RESTClient().GetRateLimiter() != nil; got != tc.wantLimiter || cfg.Workers != 3 {
			t.Errorf("%+v: rate limiter %t, workers %d; want limiter %t and 3 workers", tc.limit, got, cfg.Workers, tc.wantLimiter)
		}
	}
}
