package rollout

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
)

// addOutputFlag adds -o to a read command.
func addOutputFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVarP(format, "output", "o", "", "output format: json or yaml (default: text for people)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
}

// checkOutput rejects unknown formats before anything is read.
func checkOutput(format string) error {
	switch format {
	case "", "json", "yaml":
		return nil
	}
	return exit.Usage(fmt.Errorf("unknown output format %q: use json or yaml", format))
}

// printObject writes v as JSON or YAML.
func printObject(w io.Writer, format string, v any) error {
	var out []byte
	var err error
	if format == "yaml" {
		out, err = yaml.Marshal(v)
	} else {
		out, err = json.MarshalIndent(v, "", "  ")
		out = append(out, '\n')
	}
	if err != nil {
		return fmt.Errorf("encoding %s output: %w", format, err)
	}
	_, err = w.Write(out)
	return err
}
