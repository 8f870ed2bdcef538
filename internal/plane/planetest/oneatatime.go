package planetest

import (
	"fmt"
	"os"
	"testing"

	"github.com/ordinal-sh/ordinal/internal/plane/planelock"
)

// LockEnv and SlotsEnv are planelock's.
const (
	LockEnv  = planelock.LockEnv
	SlotsEnv = planelock.SlotsEnv
)

// OneAtATime blocks until a plane slot is free and takes it
// (planelock.Take): call it from TestMain after ExecMain, so a test
// binary started as the ordinal command never waits for its own parent.
func OneAtATime() (release func(), err error) { return planelock.Take() }

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
