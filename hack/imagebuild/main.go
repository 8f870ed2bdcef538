// Command imagebuild builds the ordinal-controller container image without a
// container engine and prints its digest; hack/image.sh runs it with the
// version, commit and time of the checkout. With --package (and --name,
// --entrypoint, --user, --title) it builds another of the project's
// commands the same way: hack/ensure-realnode.sh makes the real node's
// pause and test-application images so. It is a build tool: the
// controller binary itself links none of its packages.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/image"
)

func main() {
	os.Exit(exit.Run(newCommand(), os.Args[1:], os.Stdout, os.Stderr))
}

func newCommand() *cobra.Command {
	o := image.Options{Dir: ".", Repository: "ghcr.io/ordinal-sh/ordinal-controller", Out: "bin/image", Name: "ordinal-controller"}
	platforms, created := "linux/amd64,linux/arm64", os.Getenv("SOURCE_DATE_EPOCH")
	cmd := &cobra.Command{
		Use:   "imagebuild --tag TAG",
		Short: "Build the ordinal-controller image into an OCI layout and archive",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.Platforms, err = image.ParsePlatforms(platforms); err != nil {
				return exit.Usage(err)
			}
			if o.Created, err = parseEpoch(created); err != nil {
				return exit.Usage(err)
			}
			if o.Tag == "" {
				return exit.Usage(fmt.Errorf("--tag is required"))
			}
			res, err := image.Build(cmd.Context(), o)
			if err != nil {
				return err
			}
			report(cmd, o, res)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Dir, "dir", o.Dir, "the module's root directory")
	fs.StringVar(&o.Repository, "repository", o.Repository, "image repository the reference names")
	fs.StringVar(&o.Tag, "tag", o.Tag, "image tag, e.g. the VERSION file's v0.1.0")
	fs.StringVar(&o.Revision, "revision", o.Revision, "source commit for the org.opencontainers.image.revision label (empty: no label)")
	fs.StringVar(&o.LDFlags, "ldflags", o.LDFlags, "extra linker flags for the controller binary")
	fs.StringVar(&o.Out, "out", o.Out, "output directory")
	fs.StringVar(&o.Name, "name", o.Name, "file name of the layout and archive under --out")
	fs.StringVar(&o.Package, "package", image.ControllerPackage, "main package to build into the image")
	fs.StringVar(&o.Entrypoint, "entrypoint", image.BinaryPath, "the binary's path in the image, its entrypoint")
	fs.StringVar(&o.User, "user", image.User, "user:group the entrypoint runs as")
	fs.StringVar(&o.Title, "title", "ordinal-controller", "the image's org.opencontainers.image.title")
	fs.StringVar(&platforms, "platforms", platforms, "comma-separated platforms: linux/amd64, linux/arm64")
	fs.StringVar(&created, "created", created, "image creation time in Unix seconds (default $SOURCE_DATE_EPOCH, else 0)")
	return cmd
}

func parseEpoch(s string) (time.Time, error) {
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	secs, err := strconv.ParseInt(s, 10, 64)
	if err != nil || secs < 0 {
		return time.Time{}, fmt.Errorf("--created %q is not a non-negative number of Unix seconds", s)
	}
	return time.Unix(secs, 0).UTC(), nil
}

func report(cmd *cobra.Command, o image.Options, res image.Result) {
	out := cmd.OutOrStdout()
	fmt.Fprintln(out, res.Reference(o))
	for _, p := range res.Images {
		fmt.Fprintf(out, "  %-12s %s  %.1f MB to pull, binary %.1f MB\n", p.Platform, p.Digest, mb(p.Size), mb(int64(p.BinarySize)))
	}
	fmt.Fprintf(out, "OCI layout:  %s\nOCI archive: %s\n", res.Layout, res.Archive)
}

func mb(n int64) float64 { return float64(n) / 1e6 }
