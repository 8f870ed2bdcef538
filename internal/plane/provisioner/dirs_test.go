package provisioner

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEnsureDir(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, root string)
		wantErr bool
		// wantFile is a file that must still be in the directory afterwards.
		wantFile string
	}{
		{name: "a missing directory is created"},
		{name: "an existing directory is reused with its contents",
			prepare: func(t *testing.T, root string) {
				mustMkdir(t, filepath.Join(root, "pvc-1"))
				mustWrite(t, filepath.Join(root, "pvc-1", "keep"))
			},
			wantFile: "keep"},
		{name: "a file in the directory's place is an error",
			prepare: func(t *testing.T, root string) { mustWrite(t, filepath.Join(root, "pvc-1")) },
			wantErr: true},
		{name: "a symbolic link out of the root in the directory's place is an error",
			prepare: func(t *testing.T, root string) {
				if err := os.Symlink(t.TempDir(), filepath.Join(root, "pvc-1")); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.prepare != nil {
				tt.prepare(t, root)
			}
			err := ensureDir(root, "pvc-1")
			if (err != nil) != tt.wantErr {
				t.Fatalf("ensureDir() = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			fi, err := os.Lstat(filepath.Join(root, "pvc-1"))
			if err != nil || !fi.IsDir() {
				t.Fatalf("volume directory missing: %v", err)
			}
			if tt.wantFile != "" {
				if _, err := os.Stat(filepath.Join(root, "pvc-1", tt.wantFile)); err != nil {
					t.Errorf("contents were not kept: %v", err)
				}
			}
		})
	}
}

func TestEnsureDirMode(t *testing.T) {
	root := t.TempDir()
	if err := ensureDir(root, "pvc-1"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(root, "pvc-1"))
	if err != nil {
		t.Fatal(err)
	}
	// The umask can only take bits away; none may be added.
	if fi.Mode().Perm()&^dirMode != 0 {
		t.Errorf("mode = %v, want at most %v", fi.Mode().Perm(), dirMode)
	}
}

func TestRemoveDir(t *testing.T) {
	outside := t.TempDir()
	mustWrite(t, filepath.Join(outside, "precious"))
	tests := []struct {
		name    string
		prepare func(t *testing.T, root string)
	}{
		{name: "a directory and its contents are removed",
			prepare: func(t *testing.T, root string) {
				mustMkdir(t, filepath.Join(root, "pvc-1", "sub"))
				mustWrite(t, filepath.Join(root, "pvc-1", "sub", "f"))
			}},
		{name: "a missing directory counts as removed"},
		{name: "a symbolic link inside the directory is removed, not followed",
			prepare: func(t *testing.T, root string) {
				mustMkdir(t, filepath.Join(root, "pvc-1"))
				if err := os.Symlink(outside, filepath.Join(root, "pvc-1", "escape")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a symbolic link in the directory's place is removed, not followed",
			prepare: func(t *testing.T, root string) {
				if err := os.Symlink(outside, filepath.Join(root, "pvc-1")); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			mustWrite(t, filepath.Join(root, "neighbour"))
			if tt.prepare != nil {
				tt.prepare(t, root)
			}
			if err := removeDir(root, "pvc-1"); err != nil {
				t.Fatalf("removeDir() = %v", err)
			}
			if _, err := os.Lstat(filepath.Join(root, "pvc-1")); !os.IsNotExist(err) {
				t.Errorf("volume directory still there: %v", err)
			}
			for _, keep := range []string{filepath.Join(root, "neighbour"), filepath.Join(outside, "precious")} {
				if _, err := os.Stat(keep); err != nil {
					t.Errorf("%s was removed: %v", keep, err)
				}
			}
		})
	}
}

func mustMkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
}
