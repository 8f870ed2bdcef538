package realnode

import (
	"os"
	"path/filepath"
	"testing"
)

// The directories the kubelet makes outside the node's directory are
// removed at the node's stop when the node's kubelet made them, with its
// device plugin socket and its log links, and kept when they held
// something before or hold something else.
func TestTheKubeletsHostDirectoriesAreRemovedOnlyWhenTheNodeMadeThem(t *testing.T) {
	dir, err := os.MkdirTemp("", "rn")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	root, nodeDir := filepath.Join(dir, "root"), filepath.Join(dir, "data", "realnode")
	if err := os.MkdirAll(filepath.Join(root, "var", "log"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := absentHostDirs(root)
	if len(h.made) != len(kubeletHostDirs) {
		t.Fatalf("absent before the kubelet: %v, want all of %v", h.made, kubeletHostDirs)
	}
	// What the kubelet makes: its socket, a log link into the node's
	// directory; and another program's file beside them.
	plugins, logs := filepath.Join(root, "var/lib/kubelet/device-plugins"), filepath.Join(root, "var/log/containers")
	for _, d := range []string{plugins, logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fakeSocket(t, root, "/var/lib/kubelet/device-plugins/kubelet.sock", false)
	if err := os.Symlink(filepath.Join(nodeDir, "pods", "a", "0.log"), filepath.Join(logs, "a_ns_app-1.log")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/var/log/pods/b/0.log", filepath.Join(logs, "b_ns_app-2.log")); err != nil {
		t.Fatal(err)
	}
	h.remove(nodeDir)
	if _, err := os.Lstat(filepath.Join(root, "var/lib/kubelet")); !os.IsNotExist(err) {
		t.Errorf("/var/lib/kubelet, made by the node's kubelet and left empty, is still there: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(logs, "a_ns_app-1.log")); !os.IsNotExist(err) {
		t.Errorf("the node's log link is still there: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(logs, "b_ns_app-2.log")); err != nil {
		t.Errorf("a log link into another directory was removed: %v", err)
	}

	// Directories that existed before the node are the machine's.
	kept := absentHostDirs(root)
	if err := os.Remove(filepath.Join(logs, "b_ns_app-2.log")); err != nil {
		t.Fatal(err)
	}
	kept.remove(nodeDir)
	if _, err := os.Stat(logs); err != nil {
		t.Errorf("/var/log/containers, there before the node, was removed: %v", err)
	}
}
