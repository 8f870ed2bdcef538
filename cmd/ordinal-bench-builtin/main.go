// Command ordinal-bench-builtin runs upstream's StatefulSet controller
// (k8s.io/kubernetes/pkg/controller/statefulset) alone, wired as
// kube-controller-manager wires it: the `builtin` contender of `ordinal
// bench`, in a binary of its own so its memory and CPU are its own.
package main

import (
	"os"

	"github.com/ordinal-sh/ordinal/internal/bench/builtin"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
)

func main() {
	os.Exit(exit.Run(builtin.NewCommand("ordinal-bench-builtin", false), os.Args[1:], os.Stdout, os.Stderr))
}
