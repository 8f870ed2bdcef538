package root

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ordinal-sh/ordinal/internal/cli/benchcmd"
	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/cli/rollout"
	"github.com/ordinal-sh/ordinal/internal/cli/up"
)

// Main runs the command line and returns the process exit code:
// 0 success, 1 failure, 2 usage error, further codes per command (see
// package exit). The first SIGINT or SIGTERM cancels the command's context
// so it can shut down cleanly; a second one exits at once.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signalContext()
	defer stop()
	cmd := New(stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return exit.OK
	}
	fmt.Fprintf(stderr, "%s: %v\n", cmd.Name(), err)
	return exit.Code(err)
}

// New returns the root command.
func New(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "ordinal",
		Short:         "Ordinal: a StatefulSet controller, and a real Kubernetes control plane to try it on",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exit.Usage(err) })
	cmd.AddCommand(up.New())
	cmd.AddCommand(controllercmd.New())
	cmd.AddCommand(newVersion())
	benchcmd.Register(cmd)
	cmd.AddCommand(rollout.New())
	return cmd
}

func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		cancel()
		<-ch
		os.Exit(exit.Interrupted)
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
