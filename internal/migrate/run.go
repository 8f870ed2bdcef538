package migrate

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// RunOptions say where a migration keeps its files and how long it waits.
type RunOptions struct {
	// BackupDir receives the old set's backup and the new set's manifest.
	BackupDir string
	// Timeout bounds each wait: for the garbage collector to release the
	// old set's dependents, and for the new kind's controller to adopt
	// them.
	Timeout time.Duration
	// AdoptTimeout, when set, bounds the wait for the adoption instead of
	// Timeout: the release depends on the garbage collector, the adoption
	// on a controller that may not be running at all.
	AdoptTimeout time.Duration
	// Out receives one line per step done.
	Out io.Writer
	// Now is the clock that names the files.
	Now func() time.Time
}

// Run carries out the plan: back up, orphan-delete the old set, wait until
// its pods and revisions are released, create the new set, carry the
// rollout state over, and wait until the new set has adopted every pod and
// revision with none replaced. An error after the delete, or after a
// delete or create that may have taken effect (cut short by Ctrl-C, a
// timeout or a lost connection), says what state things are in and how to
// finish or undo by hand.
func (p *Plan) Run(ctx context.Context, c Clients, o RunOptions) error {
	files, err := p.writeFiles(o.BackupDir, o.Now())
	if err != nil {
		return fmt.Errorf("%w; nothing was changed", err)
	}
	for _, l := range p.Losses {
		fmt.Fprintf(o.Out, "%s does not keep: %s\n", p.To.APIVersion(), l)
	}
	fmt.Fprintf(o.Out, "backed up %s to %s\n", p.FromRef(), files.Backup)
	return p.runWithFiles(ctx, c, o, files)
}

// runWithFiles is Run once the files are written.
func (p *Plan) runWithFiles(ctx context.Context, c Clients, o RunOptions, files Files) error {
	if err := p.orphanDelete(ctx); err != nil {
		return p.deleteFailed(ctx, files, err)
	}
	fmt.Fprintf(o.Out, "deleted %s with propagationPolicy=Orphan: its pods, claims and revisions keep running\n", p.FromRef())
	if err := p.waitReleased(ctx, c, o.Timeout); err != nil {
		return p.stuck(deleted, files, err)
	}
	fmt.Fprintf(o.Out, "the garbage collector released %s\n", p.dependentsCount())
	return p.create(ctx, c, o, files)
}

// deleteRetries is how many times a delete refused because only the
// old set's status changed is tried again.
const deleteRetries = 3

// orphanDelete deletes the old set, guarded by its UID and
// resourceVersion. Its controller may write its status between the read
// and the delete (a condition, a count): the delete is then tried again
// with the new resourceVersion, as long as nothing the migration carries
// or backed up has changed.
func (p *Plan) orphanDelete(ctx context.Context) error {
	rv := p.resourceVersion
	for try := 0; ; try++ {
		err := p.from.orphanDelete(ctx, p.Name, p.uid, rv)
		if !apierrors.IsConflict(err) || try == deleteRetries {
			return err
		}
		st, serr := p.from.state(ctx, p.Name)
		if serr != nil || !st.sameFor(p.read) {
			return err
		}
		rv = st.ResourceVersion
	}
}

func (o RunOptions) adoptTimeout() time.Duration {
	if o.AdoptTimeout > 0 {
		return o.AdoptTimeout
	}
	return o.Timeout
}

// settleTimeout bounds the read that finds out what a failed call did.
const settleTimeout = 10 * time.Second

// settled is a context for that read: the migration's own may be the
// reason the call failed (Ctrl-C).
func settled(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
}

// deleteFailed reads the old set again to tell whether the failed delete
// took effect: an interrupted request may have reached the API server.
func (p *Plan) deleteFailed(ctx context.Context, files Files, cause error) error {
	sctx, cancel := settled(ctx)
	defer cancel()
	st, err := p.from.state(sctx, p.Name)
	switch {
	case err == nil && st.UID == p.uid && !st.Deleting:
		if apierrors.IsConflict(cause) {
			return fmt.Errorf("%s changed since it was read (%w); nothing was changed: run the migration again", p.FromRef(), cause)
		}
		return fmt.Errorf("deleting %s: %w; nothing was changed", p.FromRef(), cause)
	case err == nil || apierrors.IsNotFound(err):
		return p.stuck(deleted, files, fmt.Errorf("deleting %s: %w; but it is deleted", p.FromRef(), cause))
	}
	return p.stuck(deleteUnknown, files, fmt.Errorf("deleting %s: %w; whether it is deleted could not be read: %w", p.FromRef(), cause, err))
}

// create makes the new set, carries the rollout state over and waits for
// the adoption.
func (p *Plan) create(ctx context.Context, c Clients, o RunOptions, files Files) error {
	uid, err := p.to.create(ctx, p.next, false)
	if err != nil {
		return p.createFailed(ctx, files, err)
	}
	if p.CurrentRevision != "" {
		if err := p.to.carryStatus(ctx, p.Name, p.CurrentRevision, p.CollisionCount); err != nil {
			return p.stuck(createdUncarried, files, fmt.Errorf("writing the status of %s: %w", p.ToRef(), err))
		}
	}
	fmt.Fprintf(o.Out, "created %s with the same spec (status.currentRevision %s, collisionCount %d)\n",
		p.ToRef(), p.CurrentRevision, deref(p.CollisionCount))
	if err := p.waitAdopted(ctx, c, uid, o.adoptTimeout()); err != nil {
		return p.stuck(created, files, err)
	}
	if p.rolling() {
		fmt.Fprintf(o.Out, "%s adopted %s; its rollout goes on from revision %s to %s\n",
			p.ToRef(), p.dependentsCount(), p.CurrentRevision, p.UpdateRevision)
		return nil
	}
	fmt.Fprintf(o.Out, "%s adopted %s at update revision %s; no pod was restarted\n",
		p.ToRef(), p.dependentsCount(), p.UpdateRevision)
	return nil
}

// createFailed reads the new set to tell whether the failed create took
// effect. No set of the name existed when the migration was prepared.
func (p *Plan) createFailed(ctx context.Context, files Files, cause error) error {
	sctx, cancel := settled(ctx)
	defer cancel()
	_, err := p.to.state(sctx, p.Name)
	switch {
	case err == nil:
		return p.stuck(createdUncarried, files, fmt.Errorf("creating %s: %w; but it is created", p.ToRef(), cause))
	case apierrors.IsNotFound(err):
		return p.stuck(deleted, files, fmt.Errorf("creating %s: %w", p.ToRef(), cause))
	}
	return p.stuck(createUnknown, files, fmt.Errorf("creating %s: %w; whether it is created could not be read: %w", p.ToRef(), cause, err))
}

// dependentsCount says how many pods and revisions the old set had.
func (p *Plan) dependentsCount() string {
	return count(len(p.Pods), "pod") + " and " + count(len(p.Revisions), "revision")
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func deref(n *int32) int32 {
	if n == nil {
		return 0
	}
	return *n
}

// stage is how far a migration got before it stopped.
type stage int

const (
	// deleteUnknown: the old set's orphan delete may or may not have
	// taken effect.
	deleteUnknown stage = iota
	// deleted: the old set is deleted (or being deleted) with its
	// dependents orphaned; no new set exists.
	deleted
	// createUnknown: the old set is deleted; the new set's create may or
	// may not have taken effect.
	createUnknown
	// createdUncarried: the new set exists; the old set's rollout state
	// may not have been carried into its status.
	createdUncarried
	// created: the new set exists with the rollout state carried.
	created
)

// Stuck is a migration that stopped after changing something, or after
// a call that may have: State says what the cluster looks like, Finish
// and Undo the commands that complete or reverse it.
type Stuck struct {
	Err                 error
	State, Finish, Undo string
}

// Error is the cause, then the state, the way to finish and the way to
// undo, one a line.
func (s *Stuck) Error() string {
	return fmt.Sprintf("%v\nstate:     %s\nto finish: %s\nto undo:   %s", s.Err, s.State, s.Finish, s.Undo)
}

// Unwrap returns the cause.
func (s *Stuck) Unwrap() error { return s.Err }

func (p *Plan) stuck(at stage, f Files, err error) error {
	ns := " -n " + p.Namespace
	orphaned := fmt.Sprintf("%s is deleted; its pods, claims and revisions keep running without an owner, "+
		"and nothing replaces a pod that fails", p.FromRef())
	createNext := "kubectl create" + ns + " -f " + f.Next + " (its controller adopts them)"
	createBackup := "kubectl create" + ns + " -f " + f.Backup
	removeNext := "kubectl delete" + ns + " " + p.ToRef() + " --cascade=orphan, then " + createBackup
	s := &Stuck{Err: err}
	switch at {
	case deleteUnknown:
		s.State = fmt.Sprintf("unknown: kubectl get%s %s tells; if it is there, nothing was changed; if it is gone or has a deletionTimestamp, %s",
			ns, p.FromRef(), orphaned)
		s.Finish = "if it is gone: " + createNext + "; if it is there: run the migration again"
		s.Undo = "if it is gone: " + createBackup + "; if it is there: nothing"
	case deleted:
		s.State, s.Finish, s.Undo = orphaned, createNext, createBackup
	case createUnknown:
		s.State = fmt.Sprintf("%s; kubectl get%s %s tells whether the new set was created", orphaned, ns, p.ToRef())
		s.Finish = "if it is not there: " + createNext + "; if it is: " + cmp.Or(p.carryCommand(ns), "nothing")
		s.Undo = "if it is not there: " + createBackup + "; if it is: " + removeNext
	default:
		s.State = fmt.Sprintf("%s exists; the pods and revisions it has not adopted keep running without an owner "+
			"(is a controller of %s running?)", p.ToRef(), p.To.APIVersion())
		s.Finish = "nothing: the controller of " + p.To.APIVersion() + " adopts them once it runs"
		if carry := p.carryCommand(ns); at == createdUncarried && carry != "" {
			s.Finish = carry + ", then the controller of " + p.To.APIVersion() + " adopts them once it runs"
		}
		s.Undo = removeNext
	}
	return s
}

// carryCommand is the kubectl command that carries the old set's rollout
// state into the new set's status; "" when the old set had none.
func (p *Plan) carryCommand(ns string) string {
	if p.CurrentRevision == "" {
		return ""
	}
	status := map[string]any{"currentRevision": p.CurrentRevision}
	if p.CollisionCount != nil {
		status["collisionCount"] = *p.CollisionCount
	}
	body, _ := json.Marshal(map[string]any{"status": status})
	return fmt.Sprintf("kubectl patch%s %s --subresource=status --type=merge -p '%s'", ns, p.ToRef(), body)
}
