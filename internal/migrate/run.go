package migrate

import (
	"context"
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
	// Out receives one line per step done.
	Out io.Writer
	// Now is the clock that names the files.
	Now func() time.Time
}

// Run carries out the plan: back up, orphan-delete the old set, wait until
// its pods and revisions are released, create the new set, carry the
// rollout state over, and wait until the new set has adopted every pod and
// revision with none replaced. An error after the delete says what state
// things are in and how to finish or undo by hand.
func (p *Plan) Run(ctx context.Context, c Clients, o RunOptions) error {
	files, err := p.writeFiles(o.BackupDir, o.Now())
	if err != nil {
		return fmt.Errorf("%w; nothing was changed", err)
	}
	fmt.Fprintf(o.Out, "backed up %s to %s\n", p.FromRef(), files.Backup)
	if err := p.from.orphanDelete(ctx, p.Name, p.uid, p.resourceVersion); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return fmt.Errorf("%s changed since it was read (%w); nothing was changed: run the migration again", p.FromRef(), err)
		}
		return fmt.Errorf("deleting %s: %w; nothing was changed", p.FromRef(), err)
	}
	fmt.Fprintf(o.Out, "deleted %s with propagationPolicy=Orphan: its pods, claims and revisions keep running\n", p.FromRef())
	if err := p.waitReleased(ctx, c, o.Timeout); err != nil {
		return p.stuck(deleted, files, err)
	}
	fmt.Fprintf(o.Out, "the garbage collector released %s\n", p.dependentsCount())
	return p.create(ctx, c, o, files)
}

// create makes the new set, carries the rollout state over and waits for
// the adoption.
func (p *Plan) create(ctx context.Context, c Clients, o RunOptions, files Files) error {
	uid, err := p.to.create(ctx, p.next, false)
	if err != nil {
		return p.stuck(deleted, files, fmt.Errorf("creating %s: %w", p.ToRef(), err))
	}
	if p.CurrentRevision != "" {
		if err := p.to.carryStatus(ctx, p.Name, p.CurrentRevision, p.CollisionCount); err != nil {
			return p.stuck(created, files, fmt.Errorf("writing the status of %s: %w", p.ToRef(), err))
		}
	}
	fmt.Fprintf(o.Out, "created %s with the same spec (status.currentRevision %s, collisionCount %d)\n",
		p.ToRef(), p.CurrentRevision, deref(p.CollisionCount))
	if err := p.waitAdopted(ctx, c, uid, o.Timeout); err != nil {
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
	// deleted: the old set is deleted (or being deleted) with its
	// dependents orphaned; no new set exists.
	deleted stage = iota
	// created: the new set exists.
	created
)

// Stuck is a migration that stopped after changing something: State
// says what the cluster looks like, Finish and Undo the commands that
// complete or reverse it.
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
	if at == deleted {
		return &Stuck{
			Err: err,
			State: fmt.Sprintf("%s is deleted; its pods, claims and revisions keep running without an owner, "+
				"and nothing replaces a pod that fails", p.FromRef()),
			Finish: "kubectl create" + ns + " -f " + f.Next + " (its controller adopts them)",
			Undo:   "kubectl create" + ns + " -f " + f.Backup,
		}
	}
	return &Stuck{
		Err: err,
		State: fmt.Sprintf("%s exists; the pods and revisions it has not adopted keep running without an owner "+
			"(is a controller of %s running?)", p.ToRef(), p.To.APIVersion()),
		Finish: "nothing: the controller of " + p.To.APIVersion() + " adopts them once it runs",
		Undo:   "kubectl delete" + ns + " " + p.ToRef() + " --cascade=orphan, then kubectl create" + ns + " -f " + f.Backup,
	}
}
