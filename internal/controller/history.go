package controller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/conflict"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// maxCollisions bounds the name-collision loop; each round changes the
// hash, so reaching it means something other than a hash collision is wrong.
const maxCollisions = 100

// History writes ControllerRevisions.
type History interface {
	// Persist makes res.Update exist in the API and returns res with the
	// stored revisions and the collision count actually used.
	Persist(ctx context.Context, set *appsv1.StatefulSet, res revision.Resolution) (revision.Resolution, error)
	// Delete removes a revision; NotFound is success.
	Delete(ctx context.Context, rev *appsv1.ControllerRevision) error
}

type apiHistory struct{ client kubernetes.Interface }

var _ History = (*apiHistory)(nil)

// Persist performs the resolution's single write. A create that meets an
// existing revision of the same name with the same data reuses it; with other
// data it is a hash collision: the collision count goes up and the candidate
// is rebuilt under a new name, as upstream does.
func (h *apiHistory) Persist(ctx context.Context, set *appsv1.StatefulSet, res revision.Resolution) (revision.Resolution, error) {
	switch res.Write {
	case revision.WriteBump:
		stored, err := h.bump(ctx, res.Update)
		if err != nil {
			return res, err
		}
		return res.WithUpdate(stored), nil
	case revision.WriteCreate:
		return h.create(ctx, set, res)
	default:
		return res, nil
	}
}

func (h *apiHistory) create(ctx context.Context, set *appsv1.StatefulSet, res revision.Resolution) (revision.Resolution, error) {
	candidate, collisions := res.Update, res.CollisionCount
	revs := h.client.AppsV1().ControllerRevisions(set.Namespace)
	for i := 0; i < maxCollisions; i++ {
		created, err := revs.Create(ctx, candidate, metav1.CreateOptions{})
		if err == nil {
			res.CollisionCount = collisions
			return res.WithUpdate(created), nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return res, fmt.Errorf("creating revision %s: %w", candidate.Name, err)
		}
		existing, err := revs.Get(ctx, candidate.Name, metav1.GetOptions{})
		if err != nil {
			return res, fmt.Errorf("reading revision %s: %w", candidate.Name, err)
		}
		if revision.Equal(existing, candidate) {
			res.CollisionCount = collisions
			return res.WithUpdate(existing), nil
		}
		collisions++
		candidate = revision.ForCollision(set.Name, candidate, collisions)
	}
	return res, fmt.Errorf("creating a revision for %s: %d name collisions in a row", set.Name, maxCollisions)
}

// bump raises an older equal revision's .revision (a rollback), re-reading
// it on conflict.
func (h *apiHistory) bump(ctx context.Context, want *appsv1.ControllerRevision) (*appsv1.ControllerRevision, error) {
	revs := h.client.AppsV1().ControllerRevisions(want.Namespace)
	var stored *appsv1.ControllerRevision
	err := conflict.Retry(func() error {
		cur, err := revs.Get(context.WithoutCancel(ctx), want.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cur.Revision == want.Revision {
			stored = cur
			return nil
		}
		cur.Revision = want.Revision
		stored, err = revs.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rolling revision %s forward to %d: %w", want.Name, want.Revision, err)
	}
	return stored, nil
}

func (h *apiHistory) Delete(ctx context.Context, rev *appsv1.ControllerRevision) error {
	err := h.client.AppsV1().ControllerRevisions(rev.Namespace).Delete(ctx, rev.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &rev.UID},
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting revision %s: %w", rev.Name, err)
	}
	return nil
}
