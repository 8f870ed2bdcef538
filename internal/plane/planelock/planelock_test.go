package planelock

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// With two slots two packages run their planes at once and a third
// waits until one of them is done.
func TestTwoSlotsLetTwoPackagesInAndHoldTheThird(t *testing.T) {
	t.Setenv(LockEnv, filepath.Join(t.TempDir(), "planes.lock"))
	t.Setenv(SlotsEnv, "2")
	first, err := Take()
	if err != nil {
		t.Fatal(err)
	}
	second, err := Take()
	if err != nil {
		t.Fatal(err)
	}
	third := make(chan func(), 1)
	go func() {
		release, err := Take()
		if err != nil {
			t.Error(err)
		}
		third <- release
	}()
	select {
	case <-third:
		t.Fatal("a third package took a slot while two were held")
	case <-time.After(time.Second):
	}
	first()
	select {
	case release := <-third:
		release()
	case <-time.After(10 * time.Second):
		t.Fatal("the third package did not take the slot the first released")
	}
	second()
}

func TestABadSlotCountIsRefused(t *testing.T) {
	t.Setenv(LockEnv, filepath.Join(t.TempDir(), "planes.lock"))
	for _, v := range []string{"0", "two", "17"} {
		t.Setenv(SlotsEnv, v)
		if _, err := Take(); err == nil || !strings.Contains(err.Error(), SlotsEnv) {
			t.Errorf("%s=%s: %v, want an error naming the variable", SlotsEnv, v, err)
		}
	}
}
