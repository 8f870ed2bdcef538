package rollout

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/migrate"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// migrateFlags are `ordinal migrate`'s own flags.
type migrateFlags struct {
	to        string
	force     bool
	dryRun    bool
	backupDir string
	timeout   time.Duration
}

// NewMigrate returns `migrate`, which moves a set between apps/v1 and the
// extended kind without restarting a pod. It shares the rollout commands'
// connection flags, target syntax and exit codes.
func NewMigrate() *cobra.Command {
	o := &options{flags: genericclioptions.NewConfigFlags(true), now: time.Now}
	f := &migrateFlags{}
	cmd := &cobra.Command{
		Use:   "migrate SET",
		Short: "Turn an apps/v1 StatefulSet into the extended kind, or back, with no pod restarted",
		Long: `Turn an apps/v1 StatefulSet into the extended kind (apps.ordinal.dev/v1alpha1),
or, with --to apps/v1, an extended set back into apps/v1. No pod is
restarted and no claim touched; the revisions and so the history stay.

The steps, which work with any controller managing either kind: the set is
backed up into --backup-dir (with the new set's manifest next to it), deleted
with propagationPolicy=Orphan, and once the garbage collector has released
its pods and revisions, a set of the other kind with the same spec is
created, its status.currentRevision and collisionCount are carried over,
and the new kind's controller adopts the pods and revisions. Both kinds
name revisions alike, so the pods are already up to date. If a step fails,
the error says what state things are in and how to finish or undo.

It refuses while a rollout is in progress, and, going back to apps/v1,
while an extended-only setting (Recreate, paused, progressDeadlineSeconds,
selfHealing, onFailure, reserveOrdinals, lifecycle, priority,
podUpdatePolicy, inPlace, volumeClaimUpdateStrategy) is not at its default;
--force migrates anyway (apps/v1 then drops those settings). Going back, it
refuses even with --force what apps/v1 would at once do to the pods: create
a reserved ordinal, delete a pod outside its ordinals, skip a hook that is
Pending or Failed, leave an update in place or a claim's resize unfinished.
--dry-run checks everything, asks the API server to accept the new set in a
dry run, and prints the steps.`,
		Example: `  ordinal migrate sts/web --dry-run
  ordinal migrate sts/web
  ordinal migrate osts/web --to apps/v1`,
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			o.out = cmd.OutOrStdout()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.migrate(cmd.Context(), args[0], f)
		},
	}
	o.flags.AddFlags(cmd.PersistentFlags())
	fs := cmd.Flags()
	fs.StringVar(&f.to, "to", "", "the kind to migrate to: apps.ordinal.dev/v1alpha1 (osts) or apps/v1 (sts); default: the other kind")
	fs.BoolVar(&f.force, "force", false, "migrate even while a rollout is in progress or extended-only settings would be dropped")
	fs.BoolVar(&f.dryRun, "dry-run", false, "check and print the steps; change nothing")
	fs.StringVar(&f.backupDir, "backup-dir", ".", "directory for the backup of the set and the new set's manifest (files mode 0600)")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "how long to wait for the garbage collector, and then for the adoption")
	_ = cmd.RegisterFlagCompletionFunc("to", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{setops.AppsV1.APIVersion(), setops.ExtendedKind.APIVersion()}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func (o *options) migrate(ctx context.Context, arg string, f *migrateFlags) error {
	ref, err := setops.ParseRef(arg)
	if err != nil {
		return exit.Usage(err)
	}
	to := setops.AnyKind
	if f.to != "" {
		if to, err = setops.ParseKind(f.to); err != nil {
			return exit.Usage(err)
		}
	}
	dir, err := backupDir(f.backupDir)
	if err != nil {
		return exit.Usage(err)
	}
	c, err := o.client()
	if err != nil {
		return err
	}
	mc := migrate.Clients{Kube: c.kube, Extended: c.ext}
	plan, err := migrate.Prepare(ctx, mc, c.namespace, ref, to, f.force)
	if err != nil {
		// Either end of a migration may be the extended kind.
		return classify(notInstalled(c, setops.ExtendedKind, err))
	}
	if f.dryRun {
		plan.Describe(o.out, dir)
		return nil
	}
	return plan.Run(ctx, mc, migrate.RunOptions{BackupDir: dir, Timeout: f.timeout, Out: o.out, Now: o.now})
}

// backupDir is --backup-dir made absolute, so the paths printed can be
// used from anywhere; it must be an existing directory.
func backupDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--backup-dir %s: %w", dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("--backup-dir: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("--backup-dir %s is not a directory", abs)
	}
	return abs, nil
}
