package migrate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

// pollInterval is how often the waits look again.
const pollInterval = 200 * time.Millisecond

// broken is a pod or revision that is gone or was replaced while the
// migration waited, or a new set that would update its pods: the promise
// of no restart is broken, so the wait stops at once.
type broken string

func (b broken) Error() string { return string(b) }

func isBroken(err error) bool {
	var b broken
	return errors.As(err, &b)
}

// poll runs check until it reports done, reports a broken promise, or
// timeout passes; then the error names what, the last reason check gave
// and any error after it (but not a call that failed because the time ran
// out).
func poll(ctx context.Context, timeout time.Duration, what string, check func(context.Context) (string, error)) error {
	var reason string
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		r, err := check(ctx)
		switch {
		case isBroken(err):
			return false, err
		case err != nil && ctx.Err() == nil:
			lastErr = err
			return false, nil
		case err != nil:
			return false, nil
		}
		reason, lastErr = r, nil
		return r == "", nil
	})
	switch {
	case err == nil:
		return nil
	case isBroken(err):
		return err
	}
	seen := reason
	if lastErr != nil {
		seen = strings.TrimPrefix(reason+"; then: ", "; then: ") + lastErr.Error()
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted while waiting for %s; last seen: %s", what, seen)
	}
	return fmt.Errorf("waited %s for %s; last seen: %s", timeout, what, seen)
}

// waitReleased waits until the old set is gone and the garbage collector
// has removed its owner references from its pods, revisions and claims.
func (p *Plan) waitReleased(ctx context.Context, c Clients, timeout time.Duration) error {
	what := "the garbage collector to release the pods and revisions of " + p.FromRef()
	return poll(ctx, timeout, what, func(ctx context.Context) (string, error) {
		st, err := p.from.state(ctx, p.Name)
		switch {
		case err == nil && st.UID == p.uid:
			return p.FromRef() + " still exists (the garbage collector removes it once its dependents are released)", nil
		case err != nil && !apierrors.IsNotFound(err):
			return "", err
		}
		held, err := p.dependents(ctx, c, p.uid)
		if err != nil || len(held) == 0 {
			return "", err
		}
		return "still owned by the old set: " + strings.Join(held, ", "), nil
	})
}

// dependents lists the pods, revisions and claims with an owner
// reference to uid, as kind/name.
func (p *Plan) dependents(ctx context.Context, c Clients, uid types.UID) ([]string, error) {
	sel := metav1.ListOptions{LabelSelector: p.selector.String()}
	var out []string
	pods, err := c.Kube.CoreV1().Pods(p.Namespace).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for i := range pods.Items {
		out = appendOwned(out, "pod/", &pods.Items[i].ObjectMeta, uid)
	}
	revs, err := c.Kube.AppsV1().ControllerRevisions(p.Namespace).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for i := range revs.Items {
		out = appendOwned(out, "controllerrevision/", &revs.Items[i].ObjectMeta, uid)
	}
	claims, err := c.Kube.CoreV1().PersistentVolumeClaims(p.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range claims.Items {
		out = appendOwned(out, "persistentvolumeclaim/", &claims.Items[i].ObjectMeta, uid)
	}
	return out, nil
}

func appendOwned(out []string, kind string, m *metav1.ObjectMeta, uid types.UID) []string {
	for _, ref := range m.OwnerReferences {
		if ref.UID == uid {
			return append(out, kind+m.Name)
		}
	}
	return out
}

// waitAdopted waits until the new set (uid) controls every pod and
// revision the old one did, the same objects, and its controller has
// computed the same update revision and kept the carried current
// revision. A pod or revision that disappears or is replaced stops the
// wait at once, unless a forced migration let a rollout go on.
func (p *Plan) waitAdopted(ctx context.Context, c Clients, uid types.UID, timeout time.Duration) error {
	what := p.ToRef() + " to adopt the pods and revisions"
	return poll(ctx, timeout, what, func(ctx context.Context) (string, error) {
		atCurrent, reason, err := p.podsAdopted(ctx, c, uid)
		if reason != "" || err != nil {
			return reason, err
		}
		if reason, err := p.revisionsAdopted(ctx, c, uid); reason != "" || err != nil {
			return reason, err
		}
		return p.rolloutKept(ctx, atCurrent)
	})
}

// rolloutKept checks the new set's rollout state once its controller has
// synced it. The controller's first sync, which may run before the carried
// status is written, takes the update revision as the current one; while
// pods still run the old current revision, that is written again.
func (p *Plan) rolloutKept(ctx context.Context, atCurrent int) (string, error) {
	st, err := p.to.state(ctx, p.Name)
	switch {
	case err != nil:
		return "", err
	case st.ObservedGeneration < st.Generation:
		return "its controller has not synced " + p.ToRef() + " yet", nil
	case st.UpdateRevision != p.UpdateRevision:
		return "", broken(fmt.Sprintf("%s computes update revision %s, not %s, and will update every pod", p.ToRef(), st.UpdateRevision, p.UpdateRevision))
	case p.CurrentRevision == "" || st.CurrentRevision == p.CurrentRevision || atCurrent == 0:
		return "", nil
	}
	if err := p.to.carryStatus(ctx, p.Name, p.CurrentRevision, p.CollisionCount); err != nil {
		return "", err
	}
	return fmt.Sprintf("its controller set status.currentRevision to %s; wrote %s again", st.CurrentRevision, p.CurrentRevision), nil
}

// rolling says whether the old set was mid-rollout (a forced migration):
// the new set's controller may then go on replacing pods.
func (p *Plan) rolling() bool { return p.CurrentRevision != p.UpdateRevision }

// podsAdopted checks the old set's pods: each still there, the same
// object, controlled by uid. It also counts those at the old current
// revision.
func (p *Plan) podsAdopted(ctx context.Context, c Clients, uid types.UID) (int, string, error) {
	atCurrent := 0
	for _, old := range p.Pods {
		pod, err := c.Kube.CoreV1().Pods(p.Namespace).Get(ctx, old.Name, metav1.GetOptions{})
		switch {
		case (apierrors.IsNotFound(err) || err == nil && pod.UID != old.UID) && p.rolling():
			continue
		case apierrors.IsNotFound(err):
			return 0, "", broken(fmt.Sprintf("pod %s was deleted", old.Name))
		case err != nil:
			return 0, "", err
		case pod.UID != old.UID:
			return 0, "", broken(fmt.Sprintf("pod %s was replaced (UID %s, was %s)", old.Name, pod.UID, old.UID))
		}
		if ref := metav1.GetControllerOf(pod); ref == nil || ref.UID != uid {
			return 0, "pod " + pod.Name + " is not adopted yet", nil
		}
		if pod.Labels[appsv1.ControllerRevisionHashLabelKey] == p.CurrentRevision {
			atCurrent++
		}
	}
	return atCurrent, "", nil
}

func (p *Plan) revisionsAdopted(ctx context.Context, c Clients, uid types.UID) (string, error) {
	for _, old := range p.Revisions {
		rev, err := c.Kube.AppsV1().ControllerRevisions(p.Namespace).Get(ctx, old.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return "", broken(fmt.Sprintf("revision %s was deleted", old.Name))
		case err != nil:
			return "", err
		case rev.UID != old.UID:
			return "", broken(fmt.Sprintf("revision %s was replaced", old.Name))
		}
		if ref := metav1.GetControllerOf(rev); ref == nil || ref.UID != uid {
			return "revision " + rev.Name + " is not adopted yet", nil
		}
	}
	return "", nil
}
