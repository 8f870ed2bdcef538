package root

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/ordinal-sh/ordinal/internal/cli/benchcmd"
	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/cli/dashboardcmd"
	"github.com/ordinal-sh/ordinal/internal/cli/doctor"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/cli/nodecmd"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse"
	"github.com/ordinal-sh/ordinal/internal/cli/rollout"
	"github.com/ordinal-sh/ordinal/internal/cli/up"
	"github.com/ordinal-sh/ordinal/internal/faults"
)

// Main runs the command line and returns the process exit code:
// 0 success, 1 failure, 2 usage error, further codes per command (see
// package exit). The first SIGINT or SIGTERM cancels the command's context
// so it can shut down cleanly; a second one exits at once.
func Main(args []string, stdout, stderr io.Writer) int {
	return exit.Run(New(stdout, stderr), args, stdout, stderr)
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
	// The ordinal binary's controller takes the hidden fault flags the
	// chaos suite runs it with; the cluster binary's does not.
	cmd.AddCommand(controllercmd.New(&faults.Flags{}))
	cmd.AddCommand(newVersion())
	benchcmd.Register(cmd)
	cmd.AddCommand(rollout.New())
	cmd.AddCommand(rollout.NewMigrate())
	cmd.AddCommand(rollout.NewScale())
	cmd.AddCommand(dashboardcmd.New())
	cmd.AddCommand(doctor.New())
	cmd.AddCommand(nodecmd.New())
	cmd.AddCommand(rehearse.New())
	return cmd
}
