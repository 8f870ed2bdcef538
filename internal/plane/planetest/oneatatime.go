package planetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// LockEnv names the file whose lock lets one test package at a time run
// its planes; unset, a file in the temporary directory. The test command
// runs packages side by side: a package that starts planes waits here
// while another one's planes run, and every other package (unit tests,
// links of the next test binaries) goes on beside them.
const LockEnv = "ORDINAL_TEST_PLANE_LOCK"

// OneAtATime blocks until no other test process holds the plane lock,
// takes it, and returns the function that releases it. The kernel
// releases it too when the process ends, however it ends. Call it from
// TestMain after ExecMain, so a test binary started as the ordinal
// command never waits for its own parent.
func OneAtATime() (release func(), err error) {
	path := os.Getenv(LockEnv)
	if path == "" {
		path = filepath.Join(os.TempDir(), "ordinal-test-planes.lock")
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the plane lock: %w", err)
	}
	fd := int(f.Fd()) //nolint:gosec // a file descriptor fits in an int
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); errors.Is(err, syscall.EWOULDBLOCK) {
		began := time.Now()
		fmt.Printf("waiting for another test package's plane to finish (lock %s)\n", path)
		if err := syscall.Flock(fd, syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		fmt.Printf("plane lock taken after %s\n", time.Since(began).Round(time.Second))
	} else if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// RunOneAtATime is a TestMain body for a package that starts its planes
// itself: m.Run under the plane lock.
func RunOneAtATime(m *testing.M) int {
	release, err := OneAtATime()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer release()
	return m.Run()
}
