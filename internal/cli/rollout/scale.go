package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// scaleFlags are `ordinal scale`'s own flags.
type scaleFlags struct {
	remove, replace string
	dryRun          bool
}

// NewScale returns `scale`, which removes or replaces the pods the user
// chooses in an extended set. It shares the rollout commands' connection
// flags, target syntax and exit codes.
func NewScale() *cobra.Command {
	o := &options{flags: genericclioptions.NewConfigFlags(true), now: time.Now}
	f := &scaleFlags{}
	cmd := &cobra.Command{
		Use:   "scale SET (--remove N[,M...] | --replace N[,M...])",
		Short: "Remove or replace the pods you choose in an extended StatefulSet",
		Long: `Remove or replace the pods you choose, by ordinal, in an extended StatefulSet
(osts/NAME).

--remove adds the ordinals to spec.reserveOrdinals and lowers spec.replicas
by as many, in one JSON patch that applies only to the set as it was read
(it tests metadata.resourceVersion): exactly those pods go, and no other.
Each ordinal must hold a pod of the set and not be reserved already.

--replace labels the pods ` + v1alpha1.DeleteRequestedLabel + `=true: the controller
deletes each and creates it again, within rollingUpdate.maxUnavailable.

--dry-run changes nothing: it prints the change and the plan the
controller's planner makes for the set as it would be (the same report as
ordinal rollout plan). apps/v1 sets can only shrink from their highest
ordinal; ordinal migrate turns one into the extended kind.`,
		Example: `  ordinal scale osts/web --remove 3,5 --dry-run
  ordinal scale osts/web --remove 3,5
  ordinal scale osts/web --replace 4`,
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			o.out = cmd.OutOrStdout()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.scale(cmd.Context(), args[0], f)
		},
	}
	o.flags.AddFlags(cmd.PersistentFlags())
	fs := cmd.Flags()
	fs.StringVar(&f.remove, "remove", "", "ordinals whose pods go for good, like 3,5 (reserved, and replicas lowered by as many)")
	fs.StringVar(&f.replace, "replace", "", "ordinals whose pods are deleted and created again, like 4")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the change and the controller's plan for it; change nothing")
	return cmd
}

// ordinals checks that exactly one of --remove and --replace is given and
// parses it.
func (f *scaleFlags) ordinals() ([]int32, error) {
	switch {
	case f.remove == "" && f.replace == "":
		return nil, exit.Usage(errors.New("give --remove or --replace with the ordinals, like --remove 3,5"))
	case f.remove != "" && f.replace != "":
		return nil, exit.Usage(errors.New("give --remove or --replace, not both"))
	}
	list, flag := f.remove, "--remove"
	if f.replace != "" {
		list, flag = f.replace, "--replace"
	}
	ords, err := setops.ParseOrdinals(list)
	if err != nil {
		return nil, exit.Usage(fmt.Errorf("%s: %w", flag, err))
	}
	return ords, nil
}

func (o *options) scale(ctx context.Context, arg string, f *scaleFlags) error {
	ords, err := f.ordinals()
	if err != nil {
		return err
	}
	t, err := o.load(ctx, arg)
	if err != nil {
		return err
	}
	if f.remove != "" {
		return o.remove(ctx, t, ords, f.dryRun)
	}
	return o.replace(ctx, t, ords, f.dryRun)
}

// scaleChange is a removal or a replacement, ready to preview or apply.
type scaleChange struct {
	// would and did say what the change does, before and after.
	would, did string
	preview    func() (setops.Observed, error)
	apply      func() error
}

func (o *options) remove(ctx context.Context, t *setops.Target, ords []int32, dryRun bool) error {
	r, obs, err := t.PlanRemoval(ctx, ords)
	if err != nil {
		return classify(err)
	}
	pods := strings.Join(r.Pods, ", ")
	goes := "go"
	if len(r.Pods) == 1 {
		goes = "goes"
	}
	return o.run(t, dryRun, scaleChange{
		would: fmt.Sprintf("reserve %s and lower replicas from %d to %d, so that %s %s and no other pod",
			ordinalWords(r.Ordinals), r.Replicas, r.NewReplicas, pods, goes),
		did: fmt.Sprintf("%s reserved and replicas lowered from %d to %d: %s %s, and no other pod",
			ordinalWords(r.Ordinals), r.Replicas, r.NewReplicas, pods, goes),
		preview: func() (setops.Observed, error) { return r.Preview(obs) },
		apply:   func() error { return t.Remove(ctx, r) },
	})
}

func (o *options) replace(ctx context.Context, t *setops.Target, ords []int32, dryRun bool) error {
	r, obs, err := t.PlanReplacement(ctx, ords)
	if err != nil {
		return classify(err)
	}
	names := make([]string, 0, len(r.Pods))
	for _, p := range r.Pods {
		names = append(names, p.Name)
	}
	pods := strings.Join(names, ", ")
	return o.run(t, dryRun, scaleChange{
		would: fmt.Sprintf("label %s %s=true, so that the controller deletes and recreates each within maxUnavailable",
			pods, v1alpha1.DeleteRequestedLabel),
		did: fmt.Sprintf("%s labelled %s=true: the controller deletes and recreates each within maxUnavailable",
			pods, v1alpha1.DeleteRequestedLabel),
		preview: func() (setops.Observed, error) { return r.Preview(obs) },
		apply:   func() error { return t.Replace(ctx, r) },
	})
}

// run applies c and says what it did and how to follow it, or, in a dry
// run, prints what it would do and the plan for the set as it would be.
func (o *options) run(t *setops.Target, dryRun bool, c scaleChange) error {
	if !dryRun {
		if err := c.apply(); err != nil {
			return classify(err)
		}
		o.done(t, c.did)
		return nil
	}
	obs, err := c.preview()
	if err != nil {
		return err
	}
	report, err := setops.PlanReport(obs, o.now())
	if err != nil {
		return err
	}
	fmt.Fprintf(o.out, "would %s (dry run: nothing changed)\n\nThe controller's plan once it is done:\n", c.would)
	rolloutview.RenderPlan(o.out, report, o.now())
	return nil
}

// done says what was changed and how to follow it.
func (o *options) done(t *setops.Target, did string) {
	fmt.Fprintf(o.out, "%s: %s\nfollow it with: ordinal rollout status %s\n", t.Ref(), did, t.Arg())
}

// ordinalWords is "ordinal 3", "ordinals 3 and 5" or "ordinals 3, 4 and 5".
func ordinalWords(ords []int32) string {
	words := make([]string, len(ords))
	for i, o := range ords {
		words[i] = fmt.Sprint(o)
	}
	if len(words) == 1 {
		return "ordinal " + words[0]
	}
	return "ordinals " + strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
