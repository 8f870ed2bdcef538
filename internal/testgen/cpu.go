package testgen

import (
	"syscall"
	"testing"
	"time"
)

// ReportCPU reports the process's CPU time per operation (cpu-ns/op) from
// the call to the call of the function it returns: on a machine shared
// with other work, wall time per operation says little.
func ReportCPU(b *testing.B) func() {
	began := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-began)/float64(b.N), "cpu-ns/op") }
}

func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
