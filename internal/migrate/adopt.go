package migrate

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

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
