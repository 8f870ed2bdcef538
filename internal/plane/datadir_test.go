package plane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTheDataDirComesFromXDGThenHomeAndIsRequiredWithoutEither(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env       map[string]string
		want, err string
	}{
		{"XDG_DATA_HOME first", map[string]string{"XDG_DATA_HOME": "/x", "HOME": "/h"}, "/x/ordinal", ""},
		{"then HOME", map[string]string{"HOME": "/h"}, "/h/.local/share/ordinal", ""},
		{"neither", map[string]string{}, "", "--data-dir is required: neither $XDG_DATA_HOME nor $HOME is set"},
		{"both empty", map[string]string{"XDG_DATA_HOME": "", "HOME": ""}, "", "--data-dir is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveDataDir(func(k string) string { return tc.env[k] })
			if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("got %q, %v; want %q and an error saying %q", got, err, tc.want, tc.err)
			}
		})
	}
}

// With neither variable set, `ordinal up` without --data-dir refuses with
// a message naming --data-dir, rather than fall back to a directory in
// /tmp another user could have prepared.
func TestWithoutHomeTheDefaultsRefuseToStartAndNameDataDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "")
	cfg := NewConfig()
	if cfg.DataDir != "" {
		t.Errorf("default data dir %q without $HOME, want none", cfg.DataDir)
	}
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "--data-dir is required: neither $XDG_DATA_HOME nor $HOME is set") {
		t.Errorf("Validate: %v, want an error naming --data-dir", err)
	}
	cfg.DataDir = t.TempDir()
	if err := cfg.Validate(); err != nil {
		t.Errorf("with --data-dir: %v", err)
	}
}

func TestADataDirOrAuthorityOthersCouldWriteIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := checkPrivate("data dir", filepath.Join(dir, "absent"), false); err != nil {
		t.Errorf("a path yet to be made: %v", err)
	}
	if err := checkPrivate("data dir", dir, false); err != nil {
		t.Errorf("a private directory: %v", err)
	}
	crt, key := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	for _, f := range []string{crt, key} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		path   string
		mode   os.FileMode
		secret bool
		want   string
	}{
		{"a directory others may write", dir, 0o777, false, "is writable by its group or others (mode 0777)"},
		{"a directory its group may write", dir, 0o770, false, "is writable by its group or others (mode 0770)"},
		{"a world-readable directory", dir, 0o755, false, ""},
		{"a certificate others may write", crt, 0o666, false, "is writable by its group or others (mode 0666)"},
		{"a readable certificate", crt, 0o644, false, ""},
		{"a key others may read", key, 0o640, true, "is readable or writable by its group or others (mode 0640)"},
		{"a private key", key, 0o600, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.Chmod(tc.path, tc.mode); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = os.Chmod(tc.path, 0o700) }()
			err := checkPrivate("certificate authority file", tc.path, tc.secret)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("mode %04o: %v, want %q", tc.mode, err, tc.want)
			}
		})
	}
	t.Run("a certificate of another user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("only root can give a file to another user")
		}
		if err := os.Chown(crt, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		err := checkPrivate("certificate authority file", crt, false)
		if err == nil || !strings.Contains(err.Error(), "belongs to uid 65534, not to you (uid 0)") || !strings.Contains(err.Error(), "--data-dir") {
			t.Errorf("%v, want a refusal naming the owner and --data-dir", err)
		}
	})
}
