package child

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "child.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A child that ends on its own says how, and its output is in its log
// after the header line.
func TestAChildThatExitsSaysHowAndLeavesItsLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "child.log")
	p, err := Start(Options{Name: "agent", Binary: script(t, "echo 'cannot bind' >&2\nexit 3"), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if err := p.Exited(); err == nil || err.Error() != "agent exited (exit status 3)" {
		t.Errorf("Exited() = %v, want agent exited (exit status 3)", err)
	}
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(raw)), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "---- ") || lines[1] != "cannot bind" {
		t.Errorf("log %q, want a header line and the child's output", raw)
	}
	if info, err := os.Stat(log); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v (%v), want 0600", info.Mode().Perm(), err)
	}
	if err := p.Stop(syscall.SIGTERM, time.Second); err != nil {
		t.Errorf("stopping a child that has ended: %v", err)
	}
}

// A child that obeys the signal stops within the grace period; one that
// ignores it is killed after it, and Stop says so.
func TestStopSignalsThenKillsAfterTheGracePeriod(t *testing.T) {
	dir := t.TempDir()
	obeys, err := Start(Options{Name: "obeys", Binary: script(t, "exec sleep 60"), Log: filepath.Join(dir, "obeys.log")})
	if err != nil {
		t.Fatal(err)
	}
	if err := obeys.Exited(); err != nil {
		t.Fatalf("a running child reports %v", err)
	}
	if err := obeys.Stop(syscall.SIGTERM, 10*time.Second); err != nil {
		t.Errorf("a child that obeys SIGTERM: %v", err)
	}
	ignores, err := Start(Options{Name: "ignores", Binary: script(t, "trap '' TERM\nwhile :; do sleep 0.1; done"), Log: filepath.Join(dir, "ignores.log")})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // for the trap to be set
	began := time.Now()
	err = ignores.Stop(syscall.SIGTERM, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "ignores did not stop within 300ms of terminated; killed") {
		t.Errorf("Stop of a child that ignores SIGTERM = %v", err)
	}
	if took := time.Since(began); took < 300*time.Millisecond {
		t.Errorf("killed after %v, before the grace period", took)
	}
	var none *Process
	if err := none.Stop(syscall.SIGTERM, time.Second); err != nil {
		t.Errorf("Stop of no process: %v", err)
	}
}

// Standard output can go elsewhere than the log, standard error stays.
func TestStdoutCanBeWatched(t *testing.T) {
	var out strings.Builder
	p, err := Start(Options{Name: "plane", Binary: script(t, "echo up\necho warn >&2"), Log: filepath.Join(t.TempDir(), "log"), Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	raw, _ := os.ReadFile(p.LogPath())
	if out.String() != "up\n" || !strings.HasSuffix(string(raw), "warn\n") || strings.Contains(string(raw), "up\n") {
		t.Errorf("stdout %q, log %q", out.String(), raw)
	}
}

// LastLines keeps the end of the log without blank or header lines.
func TestLastLinesSkipsBlankAndHeaderLinesAndKeepsTheEnd(t *testing.T) {
	p, err := Start(Options{Name: "c", Binary: script(t, "printf 'a\\n\\nb\\nc\\n\\n'"), Log: filepath.Join(t.TempDir(), "log")})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if got := p.LastLines(2); got != "b | c" {
		t.Errorf("LastLines(2) = %q, want %q", got, "b | c")
	}
	if got := p.LastLines(5); got != "a | b | c" {
		t.Errorf("LastLines(5) = %q, want %q", got, "a | b | c")
	}
	if err := os.Remove(p.LogPath()); err != nil {
		t.Fatal(err)
	}
	if got := p.LastLines(2); !strings.HasPrefix(got, "no log: ") {
		t.Errorf("LastLines of a missing log = %q", got)
	}
}
