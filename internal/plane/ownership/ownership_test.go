package ownership

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mkdir makes the directories of path, each with mode.
func mkdir(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestPrivateRefusesWhatOthersMayWriteOrRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mode   os.FileMode
		secret bool
		want   string
	}{
		{"a file only you may write", 0o644, false, ""},
		{"a file its group may write", 0o664, false, file + " is writable by its group or others (mode 0664)"},
		{"a file others may write", 0o646, false, file + " is writable by its group or others (mode 0646)"},
		{"a secret others may read", 0o604, true, file + " is readable or writable by its group or others (mode 0604)"},
		{"a private secret", 0o600, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.Chmod(file, tc.mode); err != nil {
				t.Fatal(err)
			}
			err := Private(file, tc.secret)
			var refused *Error
			if tc.want == "" && err != nil || tc.want != "" && (!errors.As(err, &refused) || err.Error() != tc.want) {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
	if err := Private(filepath.Join(dir, "absent"), false); err != nil {
		t.Errorf("a path yet to be made: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := Private(filepath.Join(dir, "dangling"), false); err == nil {
		t.Error("a dangling symbolic link passed")
	}
}

// A directory above a path is refused when someone else could rename or
// replace what it holds: writable by others without the sticky bit, or
// owned by another user than root and you; found through symbolic links
// too.
func TestAncestorsRefuseADirectoryThroughWhichOthersCouldSwapThePath(t *testing.T) {
	base := t.TempDir()
	mkdir(t, base, 0o755)
	shared := filepath.Join(base, "shared")
	tools := filepath.Join(shared, "cache", "tools")
	mkdir(t, tools, 0o755)
	mkdir(t, filepath.Join(shared, "cache"), 0o755)
	for _, tc := range []struct {
		name string
		mode os.FileMode
		want string
	}{
		{"a directory only its owner may write", 0o755, ""},
		{"a directory others may write", 0o777, shared + " (a directory above " + tools + ") is writable by its group or others (mode 0777) and has no sticky bit"},
		{"a directory its group may write", 0o775, "(mode 0775) and has no sticky bit"},
		{"a shared directory with the sticky bit, as /tmp", 0o777 | os.ModeSticky, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mkdir(t, shared, tc.mode)
			err := Ancestors(tools)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
	mkdir(t, shared, 0o755)

	t.Run("a symbolic link to a path below a directory others may write", func(t *testing.T) {
		open := filepath.Join(base, "open")
		mkdir(t, filepath.Join(open, "tools"), 0o755)
		mkdir(t, open, 0o777)
		link := filepath.Join(base, "link")
		if err := os.Symlink(filepath.Join(open, "tools"), link); err != nil {
			t.Fatal(err)
		}
		err := Ancestors(link)
		if err == nil || !strings.Contains(err.Error(), open+" (a directory above "+link+") is writable") {
			t.Errorf("%v, want %s refused", err, open)
		}
	})

	t.Run("a directory of another user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("only root can give a directory to another user")
		}
		if err := os.Chown(shared, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = os.Chown(shared, 0, 0) }()
		err := Ancestors(tools)
		if err == nil || !strings.Contains(err.Error(), shared+" (a directory above "+tools+") belongs to uid 65534, neither root nor you (uid 0)") {
			t.Errorf("%v, want %s refused for its owner", err, shared)
		}
	})
	if err := Ancestors(filepath.Join(tools, "absent", "deeper")); err != nil {
		t.Errorf("a path yet to be made below private directories: %v", err)
	}
}
