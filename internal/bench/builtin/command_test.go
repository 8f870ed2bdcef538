package builtin

import (
	"io"
	"strings"
	"testing"
)

// Injected API faults are a property of Ordinal's client; upstream's
// controller has no such flag, so asking for them is refused rather than
// ignored.
func TestCommandRefusesInjectedFaults(t *testing.T) {
	cmd := NewCommand("bench-builtin-controller", true)
	cmd.SetArgs([]string{"--kubeconfig", "/nonexistent/kubeconfig", "--fault-rate", "0.05"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "--fault-rate") {
		t.Fatalf("Execute() = %v, want an error naming --fault-rate", err)
	}
}
