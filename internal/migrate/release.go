package migrate

import (
	"context"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

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
