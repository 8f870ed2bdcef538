package realnode

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// kubeletHostDirs are the directories a kubelet makes outside its root
// directory whatever it is told, outermost first: the device plugins'
// socket directory (a path of the device plugin API) and the containers'
// log links.
var kubeletHostDirs = []string{"/var/lib/kubelet", "/var/lib/kubelet/device-plugins", "/var/log/containers"}

// hostDirs are those of kubeletHostDirs, below root, that did not exist
// before the node's kubelet started, and so are the node's to remove.
type hostDirs struct {
	root string
	made []string
}

// absentHostDirs notes which of the kubelet's host directories do not
// exist yet.
func absentHostDirs(root string) hostDirs {
	h := hostDirs{root: root}
	for _, d := range kubeletHostDirs {
		if _, err := os.Lstat(filepath.Join(root, d)); os.IsNotExist(err) {
			h.made = append(h.made, d)
		}
	}
	return h
}

// remove removes, once the kubelet has stopped, what it left in the
// directories it made: its device plugin socket, and log links into
// nodeDir (whose pods' logs are the node's); then the directories
// themselves, innermost first, when nothing else is in them.
func (h hostDirs) remove(nodeDir string) {
	for _, d := range slices.Backward(h.made) {
		dir := filepath.Join(h.root, d)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if e.Type()&os.ModeSocket != 0 && e.Name() == "kubelet.sock" {
				_ = os.Remove(path)
			}
			if target, err := os.Readlink(path); err == nil && nodeDir != "" && strings.HasPrefix(target, nodeDir+string(filepath.Separator)) {
				_ = os.Remove(path)
			}
		}
		_ = os.Remove(dir) // refused while it holds anything else
	}
}
