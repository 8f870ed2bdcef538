package floor

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/bench/contender"
)

// NewCommand returns the command that runs the floor with `ordinal
// controller`'s flags. use names it: `bench-floor` inside the ordinal
// binary, the binary's own name as ordinal-bench-floor.
func NewCommand(use string, hidden bool) *cobra.Command {
	var statsFile, pprofAddr string
	cmd := &cobra.Command{Use: use, Hidden: hidden, Args: cobra.NoArgs,
		Short: "Run the benchmark floor: only the writes a change cannot avoid"}
	cfg := contender.Flags(cmd.Flags())
	cmd.Flags().StringVar(&statsFile, "stats-file", "", "keep the count of writes issued in this file")
	cmd.Flags().StringVar(&pprofAddr, "pprof-address", "", "serve net/http/pprof here (empty: off)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		rc, err := contender.RESTConfig(cfg, "ordinal-bench-floor")
		if err != nil {
			return err
		}
		if err := contender.ServePprof(cmd.Context(), pprofAddr); err != nil {
			return err
		}
		client, err := kubernetes.NewForConfig(rc)
		if err != nil {
			return fmt.Errorf("building client: %w", err)
		}
		f := informers.NewSharedInformerFactory(client, 0)
		fl, err := New(client, f)
		if err != nil {
			return err
		}
		ctx := cmd.Context()
		f.Start(ctx.Done())
		defer f.Shutdown()
		if statsFile != "" {
			go fl.WriteStats(ctx, statsFile)
		}
		return fl.Run(ctx, cfg.Workers)
	}
	return cmd
}
