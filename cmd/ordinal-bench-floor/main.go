// Command ordinal-bench-floor runs the `floor` contender of `ordinal
// bench`: a client that makes only the writes a scenario cannot avoid.
package main

import (
	"os"

	"github.com/ordinal-sh/ordinal/internal/bench/floor"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
)

func main() {
	os.Exit(exit.Run(floor.NewCommand("ordinal-bench-floor", false), os.Args[1:], os.Stdout, os.Stderr))
}
