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
	for _, want := range []string{"plane exited (exit status 1) before it was up",
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
	<-p.Done()
	err = alive(p)
	if err == nil || !strings.Contains(err.Error(), "ordinal exited (exit status 2) early: forbidden: cannot list pods; see ") {
		t.Errorf("alive() = %v, want the exit and the log's last line", err)
	}
}
