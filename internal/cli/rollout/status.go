package rollout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

type statusOptions struct {
	*options
	timeout  time.Duration
	interval time.Duration
	watch    bool
	failFast bool
	output   string
}

func newStatus(o *options) *cobra.Command {
	s := &statusOptions{options: o}
	cmd := &cobra.Command{
		Use:   "status SET",
		Short: "Watch a rollout pod by pod until it completes, fails or times out",
		Long: `Watch a rollout pod by pod: one line per ordinal with its revision and state,
a progress bar and the partition. Exits 0 when kubectl would call the rollout
complete, 6 when a pod at the update revision is failing (with --fail-fast) or
--timeout passes. For an extended set (osts/NAME) it also shows the pause,
the conditions and the pods the rollout is blocked by; it exits 6 as soon
as the controller declares the rollout failed (Progressing False, or an
automatic rollback), and 0 once the pods from the partition up are updated
and every pod is Ready, or the rollout is paused where it stands. On a terminal the view redraws in place; otherwise it prints
a new block each time something changes.`,
		Example:           "  ordinal rollout status web --timeout 5m\n  kubectl ordinal rollout status statefulset/web -o yaml\n  ordinal rollout status osts/web",
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.run(cmd.Context(), args[0])
		},
	}
	f := cmd.Flags()
	f.DurationVar(&s.timeout, "timeout", 0, "give up after this long, exit 6 (0 waits forever, as kubectl)")
	f.DurationVar(&s.interval, "interval", 500*time.Millisecond, "how often to look at the set and its pods")
	f.BoolVarP(&s.watch, "watch", "w", true, "keep watching until the rollout ends; false prints the state once")
	f.BoolVar(&s.failFast, "fail-fast", true, "exit 6 as soon as a pod at the update revision is failing (crash loop, image pull error, Failed)")
	addOutputFlag(cmd, &s.output)
	return cmd
}

func (s *statusOptions) run(ctx context.Context, arg string) error {
	if err := checkOutput(s.output); err != nil {
		return err
	}
	t, err := s.load(ctx, arg)
	if err != nil {
		return err
	}
	reqCtx := ctx
	if s.timeout > 0 {
		var cancel, cancelReq context.CancelFunc
		ctx, cancel = context.WithTimeout(reqCtx, s.timeout)
		defer cancel()
		reqCtx, cancelReq = context.WithTimeout(reqCtx, s.timeout+requestGrace)
		defer cancelReq()
	}
	d := newDrawer(s.out)
	var last rolloutview.Snapshot
	for first := true; ; first = false {
		snap, err := s.observe(reqCtx, t, first)
		if err != nil {
			return s.stopped(ctx, err, last)
		}
		last = snap
		if s.output != "" {
			return printObject(s.out, s.output, snap)
		}
		d.draw(snap)
		if done, err := s.verdict(snap); done || err != nil || !s.watch {
			return err
		}
		select {
		case <-ctx.Done():
			return s.stopped(ctx, ctx.Err(), snap)
		case <-time.After(s.interval):
		}
	}
}

// requestGrace is how much longer than --timeout the watch's API calls may
// take. The client's rate limiter refuses at once a request whose wait
// for a token would outlast its context's deadline; with the watch's own
// deadline, a refusal in its last moments ended it with that error (exit
// 1) instead of the timeout (exit 6). Past --timeout the watch ends
// anyway, with the timeout.
const requestGrace = time.Second

// observe reads the set (already read on the first round) and its pods.
func (s *statusOptions) observe(ctx context.Context, t *setops.Target, first bool) (rolloutview.Snapshot, error) {
	if !first {
		if err := t.Refresh(ctx); err != nil {
			return rolloutview.Snapshot{}, err
		}
	}
	return t.StatusSnapshot(ctx)
}

// verdict ends the watch: done, failing, or a set kubectl cannot follow.
func (s *statusOptions) verdict(snap rolloutview.Snapshot) (bool, error) {
	switch {
	case snap.Err != "":
		return true, exit.With(exit.Failure, errors.New(snap.Err))
	case snap.Failed:
		return true, exit.With(RolloutFails, fmt.Errorf("%s; run `ordinal rollout plan %s` for what to do", snap.Failure, planArg(snap)))
	case snap.Done:
		return true, nil
	case s.failFast && snap.Failure != "":
		return true, exit.With(RolloutFails, fmt.Errorf("rollout failed: %s; run `ordinal rollout plan %s` for what to do", snap.Failure, planArg(snap)))
	}
	return false, nil
}

// stopped turns the end of the context into the right exit: a timeout is a
// failed rollout (6), an interrupt is 130, anything else is classified.
func (s *statusOptions) stopped(ctx context.Context, err error, last rolloutview.Snapshot) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return exit.With(RolloutFails, fmt.Errorf("timed out after %s: %s", s.timeout, stuck(last)))
	case ctx.Err() != nil:
		return exit.With(exit.Interrupted, ctx.Err())
	}
	return classify(err)
}

// stuck summarizes why a rollout has not completed: kubectl's message and
// the first pod that is not Ready.
func stuck(s rolloutview.Snapshot) string {
	msg := strings.TrimSuffix(s.Message, "...")
	for _, c := range s.Cells {
		if c.State != rolloutview.StateReady {
			msg += fmt.Sprintf("; %s (revision %s) is %s", c.Pod, c.Revision, c.State)
			if c.Reason != "" {
				msg += ": " + c.Reason
			}
			break
		}
	}
	if s.Name != "" {
		msg += fmt.Sprintf("; run `ordinal rollout plan %s` for why", planArg(s))
	}
	return msg
}

// planArg names the set of s as `ordinal rollout plan` takes it.
func planArg(s rolloutview.Snapshot) string {
	if s.Resource == rolloutview.ResourceExtended {
		return setops.ExtendedKind.Short() + "/" + s.Name
	}
	return s.Name
}

// drawer prints snapshots: redrawn in place on a terminal, otherwise only
// when the text changes, so logs and tests see one block per change.
type drawer struct {
	w     io.Writer
	tty   bool
	last  string
	lines int
}

func newDrawer(w io.Writer) *drawer {
	f, ok := w.(*os.File)
	tty := false
	if ok {
		if fi, err := f.Stat(); err == nil {
			tty = fi.Mode()&os.ModeCharDevice != 0
		}
	}
	return &drawer{w: w, tty: tty}
}

func (d *drawer) draw(s rolloutview.Snapshot) {
	var buf bytes.Buffer
	rolloutview.RenderStatus(&buf, s)
	text := buf.String()
	if text == d.last {
		return
	}
	if d.tty && d.lines > 0 {
		// Cursor up over the previous frame, then clear to the end.
		fmt.Fprintf(d.w, "\x1b[%dA\x1b[J", d.lines)
	}
	_, _ = io.WriteString(d.w, text)
	d.last, d.lines = text, strings.Count(text, "\n")
}
