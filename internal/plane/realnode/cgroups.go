package realnode

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// removeKubepodsCgroups removes the kubelet's kubepods cgroups, deepest
// first, in every hierarchy (one per controller on cgroup v1, the unified
// one on v2). It runs once every pod sandbox is gone; a cgroup that still
// holds a process is left, as rmdir refuses it.
func removeKubepodsCgroups() {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*/kubepods")
	if _, err := os.Stat("/sys/fs/cgroup/kubepods"); err == nil {
		roots = append(roots, "/sys/fs/cgroup/kubepods")
	}
	for _, root := range roots {
		var dirs []string
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
		for _, d := range dirs {
			_ = os.Remove(d)
		}
	}
}
