package ownership

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Error says why a path is refused: the fact, to which the caller adds
// what it holds and what to do.
type Error struct {
	// Path is the refused file or directory.
	Path string
	// Above is the path checked when Path is one of its ancestors, else "".
	Above string
	// Owner is Path's owner when that is the reason, else -1.
	Owner int
	// Mode is Path's permission bits.
	Mode fs.FileMode
	// Secret tells whether reading by the group or others is refused too.
	Secret bool
}

func (e *Error) Error() string {
	where := e.Path
	if e.Above != "" {
		where = fmt.Sprintf("%s (a directory above %s)", e.Path, e.Above)
	}
	switch {
	case e.Owner >= 0 && e.Above != "":
		return fmt.Sprintf("%s belongs to uid %d, neither root nor you (uid %d)", where, e.Owner, os.Geteuid())
	case e.Owner >= 0:
		return fmt.Sprintf("%s belongs to uid %d, not to you (uid %d)", where, e.Owner, os.Geteuid())
	case e.Above != "":
		return fmt.Sprintf("%s is writable by its group or others (mode %04o) and has no sticky bit", where, e.Mode.Perm())
	case e.Secret:
		return fmt.Sprintf("%s is readable or writable by its group or others (mode %04o)", where, e.Mode.Perm())
	}
	return fmt.Sprintf("%s is writable by its group or others (mode %04o)", where, e.Mode.Perm())
}

// Private refuses path (following a symbolic link) when it belongs to
// another user, or when its group or others may write it (or, for a
// secret, read it), with an *Error. A path that does not exist passes:
// whoever checks it creates it, privately.
func Private(path string, secret bool) error {
	fi, err := stat(path)
	if fi == nil || err != nil {
		return err
	}
	owner, err := ownerOf(path, fi)
	if err != nil {
		return err
	}
	if owner != os.Geteuid() {
		return &Error{Path: path, Owner: owner, Mode: fi.Mode()}
	}
	mask := fs.FileMode(0o022)
	if secret {
		mask = 0o077
	}
	if fi.Mode().Perm()&mask != 0 {
		return &Error{Path: path, Owner: -1, Mode: fi.Mode(), Secret: secret}
	}
	return nil
}

// Ancestors refuses, with an *Error, a directory above path through which
// someone else could swap it: one owned by a user other than root and
// you, or one its group or others may write without the sticky bit (which
// keeps them from renaming or removing entries they do not own, as in
// /tmp). It checks the directories from the root down to path's parent,
// both as path is written and with its symbolic links resolved; those that
// do not exist pass.
func Ancestors(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("checking the directories above %s: %w", path, err)
	}
	dirs := parents(abs)
	if resolved, err := filepath.EvalSymlinks(abs); err == nil && resolved != abs {
		dirs = append(dirs, parents(resolved)...)
	}
	for _, d := range dirs {
		if err := ancestor(d, abs); err != nil {
			return err
		}
	}
	return nil
}

func ancestor(dir, of string) error {
	fi, err := stat(dir)
	if fi == nil || err != nil {
		return err
	}
	owner, err := ownerOf(dir, fi)
	if err != nil {
		return err
	}
	if owner != 0 && owner != os.Geteuid() {
		return &Error{Path: dir, Above: of, Owner: owner, Mode: fi.Mode()}
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return &Error{Path: dir, Above: of, Owner: -1, Mode: fi.Mode()}
	}
	return nil
}

// parents are the directories above an absolute, clean path, the root
// first.
func parents(abs string) []string {
	var out []string
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		out = append([]string{d}, out...)
		if d == filepath.Dir(d) {
			return out
		}
	}
}

// stat is os.Stat, except that a path that does not exist gives neither
// information nor error, and a dangling symbolic link is an error.
func stat(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		fi, err = os.Stat(path)
	}
	if err != nil {
		return nil, fmt.Errorf("checking %s: %w", path, err)
	}
	return fi, nil
}

func ownerOf(path string, fi fs.FileInfo) (int, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("checking %s: no owner to check", path)
	}
	return int(st.Uid), nil
}
