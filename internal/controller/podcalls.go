package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/podcall"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// newCaller builds the caller of every call to pods (internal/podcall):
// the role probe reads sets and pods from the controller's caches.
func (c *Controller) newCaller(opts Options) podcall.Caller {
	return podcall.New(context.Background(), podcall.Config{Client: c.client, Recorder: c.recorder,
		Hooks: opts.Hooks, RoleProbe: opts.RoleProbe, Set: c.cachedExtended, Pods: c.probedPods})
}

// cachedExtended reads an extended set from the cache by its key; none
// while the extended kind is not managed.
func (c *Controller) cachedExtended(key string) (*v1alpha1.StatefulSet, bool) {
	_, ns, name, ok := setkind.ParseKey(key)
	if !ok || c.ext == nil {
		return nil, false
	}
	set, err := c.ext.lister.Get(ns, name)
	return set, err == nil
}

// probedPods are the cached pods the set of uid controls, as the role
// probe reads them.
func (c *Controller) probedPods(uid types.UID) []podcall.Pod {
	objs, err := c.podIdx.ByIndex(ownerIndex, string(uid))
	if err != nil {
		return nil
	}
	out := make([]podcall.Pod, 0, len(objs))
	for _, o := range objs {
		if r, ok := o.(*podRecord); ok {
			out = append(out, r.probed())
		}
	}
	return out
}

// probed is what the role probe reads of the record.
func (r *podRecord) probed() podcall.Pod {
	p := podcall.Pod{UID: r.GetUID(), Namespace: r.Namespace(), Name: r.Name(), Phase: corev1.PodPhase(value(r.phase)),
		IP: r.podIP, Labels: r.labelMap()}
	if r.inPlace != nil {
		p.Annotations = r.inPlace.annotations
	}
	return p
}
