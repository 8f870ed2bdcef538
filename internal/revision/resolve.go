package revision

import (
	"cmp"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// defaultHistoryLimit applies when spec.revisionHistoryLimit is nil, which
// the API server's defaulting normally prevents.
const defaultHistoryLimit = 10

// Write is the single history write a sync needs before it can act.
type Write int

const (
	// WriteNone means the update revision already exists as the newest one.
	WriteNone Write = iota
	// WriteCreate means Resolution.Update is a new revision to create.
	WriteCreate
	// WriteBump means Resolution.Update is an existing, older revision whose
	// .revision must be raised to the next number: a rollback that reuses
	// the old name, so pods return to their old controller-revision-hash.
	WriteBump
)

// String names the write for logs and CLI output.
func (w Write) String() string {
	switch w {
	case WriteCreate:
		return "create"
	case WriteBump:
		return "bump"
	default:
		return "none"
	}
}

// Resolution is the outcome of Resolve: the revisions a sync works with and
// the one write that makes them true.
type Resolution struct {
	// Current is the revision named by status.currentRevision, or Update
	// when that revision is not found (first sync, or it was deleted).
	Current *appsv1.ControllerRevision
	// Update is the revision the set's template maps to. For WriteCreate it
	// is the unsaved candidate; for WriteBump it is a copy of the existing
	// revision with .revision already raised, ready for an Update call.
	Update *appsv1.ControllerRevision
	// Write says what the caller must persist before using Update.
	Write Write
	// CollisionCount is the count the candidate's name was hashed with.
	CollisionCount int32
}

// WithUpdate returns r with the revision the API server actually stored
// (after a create that hit an existing equal revision or a name collision,
// or after a bump). Current follows when it was the same revision: on a
// set's first sync, or when a rollback bumps the current revision itself.
func (r Resolution) WithUpdate(stored *appsv1.ControllerRevision) Resolution {
	if r.Current == r.Update || (r.Current != nil && r.Update != nil && r.Current.Name == r.Update.Name) {
		r.Current = stored
	}
	r.Update = stored
	return r
}

// Sort orders revisions oldest first: by .revision, then creation time, then
// name, as history.SortControllerRevisions does. It sorts in place.
func Sort(revisions []*appsv1.ControllerRevision) {
	slices.SortStableFunc(revisions, func(a, b *appsv1.ControllerRevision) int {
		switch {
		case a.Revision != b.Revision:
			return cmp.Compare(a.Revision, b.Revision)
		case !a.CreationTimestamp.Equal(&b.CreationTimestamp):
			if a.CreationTimestamp.Before(&b.CreationTimestamp) {
				return -1
			}
			return 1
		default:
			return cmp.Compare(a.Name, b.Name)
		}
	})
}

// Resolve finds the current and update revisions of set among its
// revisions, the way upstream's getStatefulSetRevisions does, without
// writing anything. The order of the checks is upstream's:
//  1. a byte-equal revision that is also the newest: reuse it, no write;
//  2. a byte-equal older revision: bump it (rollback);
//  3. the newest revision is semantically equal (serialization drift): reuse;
//  4. otherwise create the candidate.
//
// The input slice is not modified.
func Resolve(set *appsv1.StatefulSet, revisions []*appsv1.ControllerRevision) (Resolution, error) {
	return ResolveWith(set, revisions, Options{})
}

// ResolveWith is Resolve for a set whose revisions hold what opts adds.
func ResolveWith(set *appsv1.StatefulSet, revisions []*appsv1.ControllerRevision, opts Options) (Resolution, error) {
	sorted := slices.Clone(revisions)
	Sort(sorted)
	var collisions int32
	if set.Status.CollisionCount != nil {
		collisions = *set.Status.CollisionCount
	}
	candidate, err := NewWith(set, nextNumber(sorted), &collisions, opts)
	if err != nil {
		return Resolution{}, fmt.Errorf("building candidate revision: %w", err)
	}
	res := Resolution{CollisionCount: collisions}
	res.Update, res.Write = chooseUpdate(set, sorted, candidate, opts)
	res.Current = res.Update
	for _, rev := range sorted {
		if rev.Name == set.Status.CurrentRevision {
			res.Current = rev
			break
		}
	}
	return res, nil
}

// chooseUpdate applies the four rules listed on Resolve.
func chooseUpdate(set *appsv1.StatefulSet, sorted []*appsv1.ControllerRevision, candidate *appsv1.ControllerRevision, opts Options) (*appsv1.ControllerRevision, Write) {
	var equal *appsv1.ControllerRevision
	for _, rev := range sorted {
		if Equal(rev, candidate) {
			equal = rev
		}
	}
	newest := len(sorted) - 1
	switch {
	case equal != nil && Equal(sorted[newest], equal):
		return sorted[newest], WriteNone
	case equal != nil:
		bumped := equal.DeepCopy()
		bumped.Revision = candidate.Revision
		return bumped, WriteBump
	case newest >= 0 && SemanticallyEqualWith(set, sorted[newest], opts):
		return sorted[newest], WriteNone
	default:
		return candidate, WriteCreate
	}
}

// nextNumber is one past the highest .revision, or 1 for an empty history.
func nextNumber(sorted []*appsv1.ControllerRevision) int64 {
	if len(sorted) == 0 {
		return 1
	}
	return sorted[len(sorted)-1].Revision + 1
}

// ToTruncate returns the revisions to delete so that at most
// spec.revisionHistoryLimit non-live revisions remain, oldest first. Live
// revisions (those given, such as the current and update ones, and any
// revision a pod is labelled with) are never returned, whatever the
// limit, because deleting one would lose the template a running pod was
// created from. A negative limit keeps all.
func ToTruncate(set *appsv1.StatefulSet, revisions []*appsv1.ControllerRevision, pods []*corev1.Pod, live ...*appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	limit := defaultHistoryLimit
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	if limit < 0 {
		return nil
	}
	keep := liveNames(pods, live)
	sorted := slices.Clone(revisions)
	Sort(sorted)
	var old []*appsv1.ControllerRevision
	for _, rev := range sorted {
		if !keep[rev.Name] {
			old = append(old, rev)
		}
	}
	if len(old) <= limit {
		return nil
	}
	return old[:len(old)-limit]
}

// liveNames collects the revision names still in use.
func liveNames(pods []*corev1.Pod, revs []*appsv1.ControllerRevision) map[string]bool {
	live := make(map[string]bool, len(pods)+len(revs))
	for _, rev := range revs {
		if rev != nil {
			live[rev.Name] = true
		}
	}
	for _, pod := range pods {
		if name, ok := pod.Labels[appsv1.StatefulSetRevisionLabel]; ok {
			live[name] = true
		}
	}
	return live
}
