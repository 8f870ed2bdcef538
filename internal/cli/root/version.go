package root

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/component-base/version"
)

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the Kubernetes version Ordinal is built against",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version.Get()
			fmt.Fprintf(cmd.OutOrStdout(), "ordinal (kubernetes %s, %s)\n", v.GitVersion, v.GoVersion)
			return nil
		},
	}
}
