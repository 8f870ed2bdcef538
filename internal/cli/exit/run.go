package exit

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Run executes cmd with args and returns the process exit code: OK, the
// code an error carries (Usage for flag errors), else Failure, with one
// line on stderr saying why. The first SIGINT or SIGTERM cancels the
// command's context so it can shut down cleanly; a second one exits at
// once with Interrupted. Every binary's main goes through it.
func Run(cmd *cobra.Command, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signalContext()
	defer stop()
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return Usage(err) })
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return OK
	}
	fmt.Fprintf(stderr, "%s: %v\n", cmd.Name(), err)
	return Code(err)
}

func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		cancel()
		<-ch
		os.Exit(Interrupted)
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
