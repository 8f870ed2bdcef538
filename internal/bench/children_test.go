package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plane that fails to start says why in the error itself, since a run's
// directory may be gone by the time someone reads the result.
func TestAPlaneThatExitsEarlyReportsTheEndOfItsLog(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-ordinal")
	script := "#!/bin/sh\necho starting >&2\necho 'listening on 127.0.0.1:6443: address already in use' >&2\n\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, err := startPlane(context.Background(), Config{Binary: fake, Nodes: 1}, dir)
	if err == nil {
		t.Fatal("startPlane succeeded with a plane that exits at once")
	}
	for _, want := range []string{"plane exited before it was up (exit status 1)",
		"starting | listening on 127.0.0.1:6443: address already in use", filepath.Join(dir, "plane.log")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// The same for a contender that dies during a run.
func TestAContenderThatExitsSaysWhyItExited(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-controller")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'forbidden: cannot list pods' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := startProcess("ordinal", fake, nil, nil, filepath.Join(dir, "ordinal.log"), nil)
	if err != nil {
		t.Fatal(err)
	}
	<-p.done
	err = p.alive()
	if err == nil || !strings.Contains(err.Error(), "ordinal exited early (exit status 2): forbidden: cannot list pods; see ") {
		t.Errorf("alive() = %v, want the exit and the log's last line", err)
	}
}

func TestLastLinesSkipsBlankLinesAndKeepsTheEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("a\n\nb\nc\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := lastLines(path, 2); got != "b | c" {
		t.Errorf("lastLines = %q, want %q", got, "b | c")
	}
	if got := lastLines(path, 5); got != "a | b | c" {
		t.Errorf("lastLines = %q, want %q", got, "a | b | c")
	}
	if got := lastLines(filepath.Join(t.TempDir(), "none"), 2); !strings.HasPrefix(got, "no log: ") {
		t.Errorf("lastLines of a missing file = %q", got)
	}
}
