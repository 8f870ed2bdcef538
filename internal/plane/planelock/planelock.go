// Package planelock is the lock that lets a few test packages at a time
// run embedded control planes (one, unless SlotsEnv says more).
package planelock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// LockEnv names the file whose lock lets one test package at a time run
// its planes; unset, a file in the temporary directory. The test command
// runs packages side by side: a package that starts planes waits here
// while another one's planes run, and every other package (unit tests,
// links of the next test binaries) goes on beside them.
const LockEnv = "ORDINAL_TEST_PLANE_LOCK"

// SlotsEnv names how many test packages may run their planes at once
// (default 1): with n, the lock is n files, LockEnv's and LockEnv's with
// ".1" to ".n-1" appended, and a package takes whichever is free. A plane
// package keeps about one CPU busy, most of it the API server's and
// etcd's; on a machine with cores to spare, two side by side finish
// sooner than one after the other.
const SlotsEnv = "ORDINAL_TEST_PLANE_SLOTS"

// Take blocks until a plane slot is free (one, unless SlotsEnv says
// more), takes it, and returns the function that releases it. The kernel
// releases it too when the process ends, however it ends. Call it from
// TestMain after ExecMain, so a test binary started as the ordinal
// command never waits for its own parent.
func Take() (release func(), err error) {
	path := os.Getenv(LockEnv)
	if path == "" {
		path = filepath.Join(os.TempDir(), "ordinal-test-planes.lock")
	}
	slots, err := planeSlots()
	if err != nil {
		return nil, err
	}
	files := make([]*os.File, slots)
	closeAll := func(keep *os.File) {
		for _, f := range files {
			if f != nil && f != keep {
				f.Close()
			}
		}
	}
	for i := range files {
		name := path
		if i > 0 {
			name = fmt.Sprintf("%s.%d", path, i)
		}
		if files[i], err = os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
			closeAll(nil)
			return nil, fmt.Errorf("opening the plane lock: %w", err)
		}
	}
	began := time.Now()
	for waited := false; ; waited = true {
		f, err := takeOne(files)
		if err != nil {
			closeAll(nil)
			return nil, err
		}
		if f != nil {
			closeAll(f)
			if waited {
				fmt.Printf("plane lock taken after %s\n", time.Since(began).Round(time.Second))
			}
			return func() { f.Close() }, nil
		}
		if !waited {
			fmt.Printf("waiting for another test package's plane to finish (lock %s)\n", path)
		}
		if slots == 1 {
			// One slot: wait in the kernel, as long as it takes.
			if err := syscall.Flock(int(files[0].Fd()), syscall.LOCK_EX); err != nil { //nolint:gosec // a file descriptor fits in an int
				closeAll(nil)
				return nil, fmt.Errorf("locking %s: %w", path, err)
			}
			fmt.Printf("plane lock taken after %s\n", time.Since(began).Round(time.Second))
			return func() { files[0].Close() }, nil
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// planeSlots reads SlotsEnv.
func planeSlots() (int, error) {
	v := os.Getenv(SlotsEnv)
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 16 {
		return 0, fmt.Errorf("%s=%q: want a number of plane slots from 1 to 16", SlotsEnv, v)
	}
	return n, nil
}

// takeOne locks the first free file of files without waiting; nil when
// every one is held.
func takeOne(files []*os.File) (*os.File, error) {
	for _, f := range files {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) //nolint:gosec // a file descriptor fits in an int
		switch {
		case err == nil:
			return f, nil
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
		}
	}
	return nil, nil
}
