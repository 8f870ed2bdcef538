package builtin

import (
	"github.com/spf13/cobra"

	"github.com/ordinal-sh/ordinal/internal/bench/contender"
)

// NewCommand returns the command that runs upstream's StatefulSet
// controller alone with `ordinal controller`'s flags (--namespace scopes it
// like Ordinal; leader election and metrics are ignored; it has no flag for
// injected API faults, which only Ordinal's own client takes). use names it: `bench-builtin-controller` inside
// the ordinal binary, the binary's own name as ordinal-bench-builtin.
func NewCommand(use string, hidden bool) *cobra.Command {
	gate := true
	var pprofAddr string
	contentType := ProtobufContentType
	cmd := &cobra.Command{Use: use, Hidden: hidden, Args: cobra.NoArgs,
		Short: "Run upstream's StatefulSet controller alone (benchmarks)"}
	cfg := contender.Flags(cmd.Flags())
	cmd.Flags().BoolVar(&gate, "max-unavailable-gate", false, "feature gate MaxUnavailableStatefulSet (1.37 ships it on; 1.35.4 to 1.36 shipped it off)")
	cmd.Flags().StringVar(&contentType, "content-type", contentType, "API content type (kube-controller-manager's default)")
	cmd.Flags().StringVar(&pprofAddr, "pprof-address", "", "serve net/http/pprof here (empty: off)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		rc, err := contender.RESTConfig(cfg, "kube-controller-manager")
		if err != nil {
			return err
		}
		rc.ContentType = contentType
		if err := contender.ServePprof(cmd.Context(), pprofAddr); err != nil {
			return err
		}
		return Run(cmd.Context(), rc, Options{Workers: cfg.Workers, MaxUnavailableGate: gate, Namespace: cfg.Namespace})
	}
	return cmd
}
