package realnode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
	if err := os.WriteFile(filepath.Join(dir, "images", "pause.tar"), nil, 0o644); err != nil {
		t.Fatal(err)
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
	for _, p := range []string{dir, filepath.Join(dir, "bin"), filepath.Join(dir, "bin", "kubelet"), filepath.Join(dir, "cni", "bridge"),
		filepath.Join(dir, "images", "pause.tar")} {
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

// A directory above the tools through which another user could swap them
// (writable by others without the sticky bit) is refused by name, the
// way the data directory's files are judged; one with the sticky bit, as
// /tmp, is not.
func TestToolsBelowADirectoryOthersMayWriteAreRefused(t *testing.T) {
	dir := completeTools(t)
	above := filepath.Dir(dir)
	info, err := os.Stat(above)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.Chmod(above, info.Mode()) }()
	if err := os.Chmod(above, 0o777); err != nil {
		t.Fatal(err)
	}
	err = Config{Tools: dir}.checkTools()
	if err == nil || !strings.Contains(err.Error(), above+" (a directory above "+dir+") is writable by its group or others (mode 0777) and has no sticky bit") ||
		!strings.Contains(err.Error(), "runs what it holds as root") {
		t.Errorf("tools below a directory others may write: %v", err)
	}
	if err := os.Chmod(above, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := (Config{Tools: dir}).checkTools(); err != nil {
		t.Errorf("tools below a sticky shared directory: %v", err)
	}
}

// The node's directory holds configuration that processes running as root
// read: one below a directory others may write is refused, as the tools
// are.
func TestANodeDirectoryOthersCouldSwapIsRefused(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "data", "realnode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := (Config{Dir: dir}).checkDir(); err != nil {
		t.Fatalf("a private node directory: %v", err)
	}
	data := filepath.Join(base, "data")
	if err := os.Chmod(data, 0o777); err != nil {
		t.Fatal(err)
	}
	err := Config{Dir: dir}.checkDir()
	if err == nil || !strings.Contains(err.Error(), data+" (a directory above "+dir+") is writable by its group or others (mode 0777)") ||
		!strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("a node directory below one others may write: %v", err)
	}
	if err := os.Chmod(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o757); err != nil {
		t.Fatal(err)
	}
	if err := (Config{Dir: dir}).checkDir(); err == nil || !strings.Contains(err.Error(), dir+" is writable by its group or others (mode 0757)") {
		t.Errorf("a node directory others may write: %v", err)
	}
}
