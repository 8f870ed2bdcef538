package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	got := append(lean[ContenderBuiltinGateOn].Args, contenderArgs(ContenderBuiltinGateOn, "kc", "stats", Limit{QPS: 20, Burst: 30}, 5)...)
	want := "--max-unavailable-gate=true --kubeconfig kc --qps 20 --burst 30 --workers 5 --leader-elect=false --metrics-address="
	if strings.Join(got, " ") != want || lean[ContenderBuiltinGateOn].Binary != "/opt/bin/"+BuiltinBinary {
		t.Errorf("builtin-gate-on runs %s %v, want /opt/bin/%s %s", lean[ContenderBuiltinGateOn].Binary, got, BuiltinBinary, want)
	}
	floor := contenderArgs(ContenderFloor, "kc", "stats", Limit{}, 1)
	if !strings.Contains(strings.Join(floor, " "), "--qps 1e+06 --burst 1000000") || floor[len(floor)-1] != "stats" {
		t.Errorf("unthrottled floor args %v: want QPS and burst 1000000 and the stats file last", floor)
	}
}
