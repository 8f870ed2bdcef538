package rollout

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

type historyOptions struct {
	*options
	revision int64
	output   string
}

func newHistory(o *options) *cobra.Command {
	h := &historyOptions{options: o}
	cmd := &cobra.Command{
		Use:   "history SET",
		Short: "List a set's revisions with change-cause, age and the ordinals running each",
		Long: `List the ControllerRevisions the set controls, as kubectl does (REVISION and
CHANGE-CAUSE from the kubernetes.io/change-cause annotation), with each
revision's name, age, the ordinals whose pods run it, and whether it is the
current or update revision. --revision N prints that revision's pod template.`,
		Example:           "  ordinal rollout history web\n  ordinal rollout history web --revision 2 -o yaml",
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			return h.run(cmd.Context(), args[0])
		},
	}
	cmd.Flags().Int64Var(&h.revision, "revision", 0, "show the pod template of this revision")
	addOutputFlag(cmd, &h.output)
	return cmd
}

func (h *historyOptions) run(ctx context.Context, arg string) error {
	if err := checkOutput(h.output); err != nil {
		return err
	}
	t, err := h.load(ctx, arg)
	if err != nil {
		return err
	}
	revs, err := t.Revisions(ctx)
	if err != nil {
		return classify(err)
	}
	if h.revision != 0 {
		return h.showRevision(t, revs)
	}
	pods, err := t.Pods(ctx)
	if err != nil {
		return classify(err)
	}
	entries := rolloutview.NewHistory(t.Set, revs, pods, setops.HeldRevision(t.Extended))
	if h.output != "" {
		return printObject(h.out, h.output, entries)
	}
	rolloutview.RenderHistory(h.out, t.Ref(), entries, h.now())
	return nil
}

// showRevision prints the template the set would have at that revision:
// the revision applied to the live set, as kubectl does.
func (h *historyOptions) showRevision(t *setops.Target, revs []*appsv1.ControllerRevision) error {
	rev, err := setops.FindRevision(revs, h.revision)
	if err != nil {
		return classify(err)
	}
	tmpl, err := setops.TemplateOf(t.Set, rev)
	if err != nil {
		return err
	}
	if h.output != "" {
		return printObject(h.out, h.output, tmpl)
	}
	text, err := yaml.Marshal(tmpl)
	if err != nil {
		return fmt.Errorf("encoding the template of revision %d: %w", h.revision, err)
	}
	fmt.Fprintf(h.out, "%s with revision #%d (%s)\nPod Template:\n%s", t.Ref(), rev.Revision, rev.Name, indent(string(text)))
	if err := showOverrides(h.out, rev); err != nil {
		return err
	}
	return showConfig(h.out, rev)
}

// showConfig prints the objects whose data the revision holds and the
// copies its pods read; nothing for a revision without any.
func showConfig(w io.Writer, rev *appsv1.ControllerRevision) error {
	records, err := configrev.Records(rev)
	if err != nil || len(records) == 0 {
		return err
	}
	fmt.Fprintf(w, "Config:\n")
	for _, r := range records {
		fmt.Fprintf(w, "  %s %s: copy %s\n", r.Kind, r.Name, r.Copy)
	}
	return nil
}

// showOverrides prints the overrides an extended set's revision holds,
// as spec.overrides reads; nothing for a revision without any.
func showOverrides(w io.Writer, rev *appsv1.ControllerRevision) error {
	held, err := revision.Overrides(rev)
	if err != nil || len(held) == 0 {
		return err
	}
	text, err := yaml.Marshal(held)
	if err != nil {
		return fmt.Errorf("encoding the overrides of revision %d: %w", rev.Revision, err)
	}
	fmt.Fprintf(w, "Overrides:\n%s", indent(string(text)))
	return nil
}

// indent shifts every line of s by two spaces.
func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line != "" {
			b.WriteString("  " + line)
		}
	}
	return b.String()
}

func newDiff(o *options) *cobra.Command {
	return &cobra.Command{
		Use:     "diff SET REVISION-A REVISION-B",
		Short:   "Show what changed in the pod template between two revisions (unified diff)",
		Example: "  ordinal rollout diff web 1 2",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 3 {
				return exit.Usage(fmt.Errorf("expected a statefulset and two revision numbers, got %d arguments", len(args)))
			}
			return nil
		},
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.diff(cmd.Context(), args[0], args[1], args[2])
		},
	}
}

func (o *options) diff(ctx context.Context, arg, a, b string) error {
	na, errA := strconv.ParseInt(a, 10, 64)
	nb, errB := strconv.ParseInt(b, 10, 64)
	if errA != nil || errB != nil {
		return exit.Usage(fmt.Errorf("revisions must be numbers, got %q and %q", a, b))
	}
	t, err := o.load(ctx, arg)
	if err != nil {
		return err
	}
	revs, err := t.Revisions(ctx)
	if err != nil {
		return classify(err)
	}
	d, err := setops.TemplateDiff(t.Set, revs, na, nb)
	if err != nil {
		return classify(err)
	}
	if d.Same() {
		fmt.Fprintf(o.out, "revisions %d and %d have the same pod template\n", na, nb)
		return nil
	}
	d.Render(o.out)
	changes, err := t.ConfigDiff(ctx, revs, na, nb)
	if err != nil {
		return classify(err)
	}
	if len(changes) > 0 {
		fmt.Fprintf(o.out, "Config (ConfigMaps: the values; Secrets: key names and hashes only):\n")
		configrev.Render(o.out, changes, func(w io.Writer, a, b string) {
			rolloutview.Diff(w, fmt.Sprintf("revision %d", na), fmt.Sprintf("revision %d", nb), a, b)
		})
	}
	return nil
}
