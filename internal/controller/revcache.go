package controller

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/internal/revision"
)

// revCache keeps, between syncs of one set, what its revisions cost to
// work out from JSON: the resolution of its current and update revisions,
// and each revision's template applied to the set. Both are pure functions
// of what their keys name — the set's spec (its UID and generation: every
// spec change is a new generation), the status fields resolution reads,
// and the revisions (UID and resourceVersion) — so a hit returns what the
// work would. The set's resourceVersion is not in the keys: every status
// write changes it, and a rollout writes status at almost every sync. A
// sync keeps only what it used.
type revCache struct {
	resolution    *cachedResolution
	applied, used map[string]*appsv1.StatefulSet
}

type cachedResolution struct {
	key string
	res revision.Resolution
}

// resolutionKey names what revision.ResolveWith reads: the set object, its
// collision count and current revision, the options, and each revision.
func resolutionKey(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, opts revision.Options, config string) string {
	var b strings.Builder
	b.WriteString(string(set.UID))
	b.WriteByte('/')
	b.WriteString(strconv.FormatInt(set.Generation, 10))
	b.WriteByte('/')
	collisions := int32(0) // nil and 0 resolve alike
	if set.Status.CollisionCount != nil {
		collisions = *set.Status.CollisionCount
	}
	b.WriteString(strconv.Itoa(int(collisions)))
	b.WriteByte('/')
	b.WriteString(set.Status.CurrentRevision)
	b.WriteByte('/')
	b.WriteString(strconv.FormatBool(opts.Claims))
	b.WriteByte('/')
	b.WriteString(config)
	for _, r := range revs {
		b.WriteByte('|')
		b.WriteString(string(r.UID))
		b.WriteByte(':')
		b.WriteString(r.ResourceVersion)
	}
	return b.String()
}

// resolve is revision.ResolveWith, from the cache when nothing it reads
// changed since the set's last sync. Only a resolution that asks for no
// write is kept: one that does changes the revisions, and with them the
// key. config names the copies the set's template reads (its data is not
// in the set's generation).
func (c *revCache) resolve(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, opts revision.Options, config string) (revision.Resolution, error) {
	key := resolutionKey(set, revs, opts, config)
	if r := c.resolution; r != nil && r.key == key && set.UID != "" {
		return r.res, nil
	}
	res, err := revision.ResolveWith(set, revs, opts)
	c.resolution = nil
	if err == nil && res.Write == revision.WriteNone {
		c.resolution = &cachedResolution{key: key, res: res}
	}
	return res, err
}

// apply is revision.Apply, from the cache when the set's spec (generation)
// and the revision are the ones it was made from. The planner reads only
// the result's name, namespace, UID and spec (planner.Input.Apply), so
// the status and metadata the cached result carries from an earlier sync
// do not matter.
func (c *revCache) apply(set *appsv1.StatefulSet, rev *appsv1.ControllerRevision) (*appsv1.StatefulSet, error) {
	if set.UID == "" || rev.UID == "" || rev.ResourceVersion == "" {
		return revision.Apply(set, rev)
	}
	key := string(set.UID) + "/" + strconv.FormatInt(set.Generation, 10) + "|" + string(rev.UID) + "/" + rev.ResourceVersion
	if c.used == nil {
		c.used = map[string]*appsv1.StatefulSet{}
	}
	if out, ok := c.used[key]; ok {
		return out, nil
	}
	out, ok := c.applied[key]
	if !ok {
		var err error
		if out, err = revision.Apply(set, rev); err != nil {
			return nil, err
		}
	}
	c.used[key] = out
	return out, nil
}

// revCacheOf is the set's revision cache, made on its first sync. A set is
// synced by one worker at a time, which alone uses the cache during the
// sync.
func (c *Controller) revCacheOf(key string) *revCache {
	var rc *revCache
	c.revCaches.update(key, func(kept *revCache) { rc = kept })
	return rc
}

// synced ends a sync: what it did not use is dropped.
func (c *revCache) synced() {
	c.applied, c.used = c.used, nil
}
