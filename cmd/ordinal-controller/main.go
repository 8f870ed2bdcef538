// Command ordinal-controller is Ordinal's StatefulSet controller alone, the
// binary to put in an image for a real cluster: `ordinal controller`'s flags
// and behaviour without the embedded control plane, so it links none of
// Kubernetes' server code and starts small.
package main

import (
	"os"

	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
)

func main() {
	cmd := controllercmd.New()
	cmd.Use = "ordinal-controller"
	os.Exit(exit.Run(cmd, os.Args[1:], os.Stdout, os.Stderr))
}
