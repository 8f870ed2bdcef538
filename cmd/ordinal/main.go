// Command ordinal is Ordinal's single binary: the embedded control plane
// (`ordinal up`), the StatefulSet controller (`ordinal controller`) and the
// rollout tools. Installed as kubectl-ordinal it is also a kubectl plugin.
package main

import (
	"os"

	"github.com/ordinal-sh/ordinal/internal/cli/root"
)

func main() {
	os.Exit(root.Main(os.Args[1:], os.Stdout, os.Stderr))
}
