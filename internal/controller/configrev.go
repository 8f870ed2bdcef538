package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// secretRecheck is how often a set's Secrets are read again: the
// controller may only get Secrets (no list or watch, which would let it
// read every Secret of a namespace), so it looks again this often, and a
// Secret's change rolls out at most this long after it is made.
const secretRecheck = 15 * time.Second

// configState is what the controller remembers of the objects a set's
// revisions hold (Controller.configs): by object, the version last read and
// the copy its data maps to, never the data, so its memory follows the
// number of references, not their size; and the copies already known to
// be owned by a revision (by copy name and revision UID).
type configState struct {
	sources map[configrev.Ref]sourceRecord
	owned   map[string]bool
}

// sourceRecord is one object as a sync last read it.
type sourceRecord struct {
	uid, version string
	// copy is the name the template reads instead: a copy's, or the
	// object's own when it is already one of the set's copies (own).
	copy string
	own  bool
	// source is the object the copy was made of (for an own copy, as its
	// label says), which history pairs revisions by.
	source string
	// readAt is when it was read (Secrets are read again after
	// secretRecheck).
	readAt time.Time
}

// configResolution is what one sync found of its set's objects: the
// references its template reads through copies, and the hold that stops
// a new revision when an object cannot be read.
type configResolution struct {
	refs []resolvedRef
	hold *osts.ConfigHold
	// fresh holds the objects this sync read, for the copies it makes.
	fresh map[configrev.Ref]any
}

type resolvedRef struct {
	ref    configrev.Ref
	record sourceRecord
}

// key names the resolution for the revision cache: the copies read.
func (r *configResolution) key() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, x := range r.refs {
		b.WriteString(x.ref.String() + "=" + x.record.copy + ";")
	}
	return b.String()
}

// resolveConfig reads the objects whose data t's revisions hold and
// points t's view at their copies, so that a change of their data is a
// new revision. When one cannot be read (missing, refused, too many) it
// holds: the view keeps the template of the revision the set rolls to
// (status.updateRevision), so no new revision is made and the rollout
// under way goes on; ok is false when there is no such revision yet, and
// the sync then only reports the hold. Sets without configRevisions are
// left alone.
func (c *Controller) resolveConfig(ctx context.Context, t *target) (ok bool, err error) {
	spec := t.extended.Spec.ConfigRevisions
	if spec == nil {
		c.configUsers.set(t.key, nil)
		return true, nil
	}
	refs := configrev.Refs(&t.view.Spec.Template, spec)
	c.configUsers.set(t.key, configMapKeys(t.view.Namespace, refs))
	res := &configResolution{fresh: map[configrev.Ref]any{}}
	t.config = res
	if res.hold = tooMany(refs); res.hold == nil {
		if res.hold, err = c.readSources(ctx, t, refs, res); err != nil {
			return false, err
		}
	}
	if res.hold != nil {
		return c.holdConfig(t)
	}
	copies := make(map[configrev.Ref]string, len(res.refs))
	for _, r := range res.refs {
		copies[configrev.Ref{Kind: r.ref.Kind, Name: r.ref.Name}] = r.record.copy
	}
	view := t.view.DeepCopy()
	view.Spec.Template = *configrev.Rewrite(&view.Spec.Template, copies)
	t.view = view
	return true, nil
}

func configMapKeys(ns string, refs []configrev.Ref) []string {
	var out []string
	for _, r := range refs {
		if r.Kind == configrev.ConfigMap {
			out = append(out, ns+"/"+r.Name)
		}
	}
	return out
}

// tooMany holds a template that reads more objects than a set's
// revisions may hold.
func tooMany(refs []configrev.Ref) *osts.ConfigHold {
	var maps, secrets int
	for _, r := range refs {
		if r.Kind == configrev.Secret {
			secrets++
		} else {
			maps++
		}
	}
	if maps <= v1alpha1.MaxConfigMaps && secrets <= v1alpha1.MaxConfigSecrets {
		return nil
	}
	return &osts.ConfigHold{Reason: "TooManyConfigObjects", Message: fmt.Sprintf(
		"the template reads %d ConfigMaps and %d Secrets; a set's revisions hold at most %d and %d (list the ones that matter with configMaps: Listed)",
		maps, secrets, v1alpha1.MaxConfigMaps, v1alpha1.MaxConfigSecrets)}
}

// readSources reads each object and finds its copy's name; a missing
// object that some reference needs, or one the controller may not read,
// is a hold. A missing optional one is left as the template names it.
func (c *Controller) readSources(ctx context.Context, t *target, refs []configrev.Ref, res *configResolution) (*osts.ConfigHold, error) {
	var missing, refused []string
	known := c.configRecords(t.key)
	next := make(map[configrev.Ref]sourceRecord, len(refs))
	for _, ref := range refs {
		key := configrev.Ref{Kind: ref.Kind, Name: ref.Name}
		rec, found, err := c.readSource(ctx, t, ref, known[key], res)
		switch {
		case apierrors.IsForbidden(err):
			refused = append(refused, ref.String())
		case err != nil:
			return nil, err
		case !found && !ref.Optional:
			missing = append(missing, ref.String())
		case found:
			next[key] = rec
			res.refs = append(res.refs, resolvedRef{ref: key, record: rec})
		}
	}
	c.configs.update(t.key, func(st *configState) { st.sources = next })
	switch {
	case len(missing) > 0:
		return &osts.ConfigHold{Reason: "ConfigMissing", Message: fmt.Sprintf(
			"%s, which the template reads, does not exist: no new revision is made until it does", strings.Join(missing, ", "))}, nil
	case len(refused) > 0:
		return &osts.ConfigHold{Reason: "ConfigForbidden", Message: fmt.Sprintf(
			"the controller may not read %s: grant its account get, create and patch on secrets in namespace %s (bind the ClusterRole ordinal-config-secrets there with a RoleBinding, or list the namespace in the chart's configSecrets.namespaces)",
			strings.Join(refused, ", "), t.view.Namespace)}, nil
	}
	return nil, nil
}

func (c *Controller) configRecords(key string) map[configrev.Ref]sourceRecord {
	var out map[configrev.Ref]sourceRecord
	c.configs.read(key, func(st *configState) { out = st.sources })
	return out
}

// readSource reads one object: a ConfigMap from the cache's metadata,
// and from the API only when its version changed since the last read; a
// Secret from the API when secretRecheck has passed.
func (c *Controller) readSource(ctx context.Context, t *target, ref configrev.Ref, last sourceRecord, res *configResolution) (sourceRecord, bool, error) {
	ns, set := t.view.Namespace, t.view.Name
	if ref.Kind == configrev.ConfigMap {
		meta, err := c.configMaps.ConfigMaps(ns).Get(ref.Name)
		if apierrors.IsNotFound(err) {
			return sourceRecord{}, false, nil
		}
		if err != nil {
			return sourceRecord{}, false, fmt.Errorf("reading ConfigMap %s from the cache: %w", ref.Name, err)
		}
		if string(meta.UID) == last.uid && meta.ResourceVersion == last.version {
			return last, true, nil
		}
		cm, err := c.client.CoreV1().ConfigMaps(ns).Get(ctx, ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return sourceRecord{}, false, nil
		}
		if err != nil {
			return sourceRecord{}, false, fmt.Errorf("reading ConfigMap %s: %w", ref.Name, err)
		}
		res.fresh[configrev.Ref{Kind: ref.Kind, Name: ref.Name}] = cm
		return sourceRecordOf(&cm.ObjectMeta, set, configrev.OfConfigMap(cm), c.now()), true, nil
	}
	if last.uid != "" && c.now().Sub(last.readAt) < secretRecheck {
		return last, true, nil
	}
	s, err := c.client.CoreV1().Secrets(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return sourceRecord{}, false, nil
	}
	if err != nil {
		return sourceRecord{}, false, fmt.Errorf("reading Secret %s: %w", ref.Name, err)
	}
	res.fresh[configrev.Ref{Kind: ref.Kind, Name: ref.Name}] = s
	return sourceRecordOf(&s.ObjectMeta, set, configrev.OfSecret(s), c.now()), true, nil
}

func sourceRecordOf(meta *metav1.ObjectMeta, set string, d configrev.Data, now time.Time) sourceRecord {
	rec := sourceRecord{uid: string(meta.UID), version: meta.ResourceVersion, readAt: now, source: meta.Name}
	if configrev.IsCopyFor(meta.Labels, set) {
		rec.copy, rec.own, rec.source = meta.Name, true, meta.Labels[v1alpha1.ConfigCopyOfLabel]
		return rec
	}
	rec.copy = configrev.CopyName(meta.Name, d.Hash())
	return rec
}

// holdConfig keeps the view at the template of the revision the set
// rolls to, so that resolution finds it and makes none; false when the
// set has no such revision yet.
func (c *Controller) holdConfig(t *target) (bool, error) {
	revs := byOwner[*appsv1.ControllerRevision](c.revIdx, t.view)
	if len(revs) == 0 {
		return false, nil
	}
	revision.Sort(revs)
	rolling := revs[len(revs)-1]
	for _, rev := range revs {
		if rev.Name == t.extended.Status.UpdateRevision {
			rolling = rev
		}
	}
	held, err := revision.Apply(t.view, rolling)
	if err != nil {
		return false, fmt.Errorf("holding at revision %s: %w", rolling.Name, err)
	}
	t.view = held
	return true, nil
}

// annotateConfig records on a new revision the objects its template
// reads through copies (configrev.Records).
func annotateConfig(t *target, rev *appsv1.ControllerRevision) error {
	if t.config == nil || t.config.hold != nil {
		return nil
	}
	records := make([]configrev.Record, 0, len(t.config.refs))
	for _, r := range t.config.refs {
		records = append(records, configrev.Record{Kind: r.ref.Kind, Name: r.record.source, Copy: r.record.copy})
	}
	return configrev.Annotate(rev, records)
}

// errConfigChanged ends a sync whose object changed between its read and
// its copy: the next sync reads it again (its change woke the set).
var errConfigChanged = errors.New("a ConfigMap or Secret changed while it was copied")

// ensureCopies makes every copy rev's pods read exist and be owned by
// rev, before any pod of rev is made: a copy is made once per data, and
// each revision that reads it adds itself to its owners, so that it goes
// with the last of them (the garbage collector deletes it).
func (c *Controller) ensureCopies(ctx context.Context, t *target, rev *appsv1.ControllerRevision) error {
	if t.config == nil || t.config.hold != nil || rev == nil || rev.UID == "" {
		return nil
	}
	var errs []error
	for _, r := range t.config.refs {
		if r.record.own || c.copyOwned(t.key, r.record.copy, rev) {
			continue
		}
		err := c.ensureCopy(ctx, t, r, rev)
		if err == nil {
			c.configs.update(t.key, func(st *configState) { st.markOwned(r.record.copy, rev) })
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (s *configState) markOwned(copyName string, rev *appsv1.ControllerRevision) {
	if s.owned == nil {
		s.owned = map[string]bool{}
	}
	s.owned[copyName+"/"+string(rev.UID)] = true
}

// copyOwned reports whether the copy is known to be owned by rev: from
// the configs memory (what this controller did), or for a ConfigMap
// from the cache.
func (c *Controller) copyOwned(key, copyName string, rev *appsv1.ControllerRevision) bool {
	owned := false
	c.configs.read(key, func(st *configState) { owned = st.owned[copyName+"/"+string(rev.UID)] })
	return owned
}

func ownerOf(rev *appsv1.ControllerRevision) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ControllerRevision", Name: rev.Name, UID: rev.UID}
}

// ensureCopy creates the copy owned by rev, or adds rev to the owners of
// the set's copy that exists. An object of that name that is not one of
// the set's copies is never taken over: the revision holds on it.
func (c *Controller) ensureCopy(ctx context.Context, t *target, r resolvedRef, rev *appsv1.ControllerRevision) error {
	meta, err := c.copyMeta(ctx, t.view.Namespace, r)
	switch {
	case apierrors.IsNotFound(err):
		return c.createCopy(ctx, t, r, ownerOf(rev))
	case err != nil:
		return fmt.Errorf("reading %s copy %s: %w", r.ref.Kind, r.record.copy, err)
	case !configrev.IsCopyFor(meta.Labels, t.view.Name):
		return fmt.Errorf("%s %s exists and is not a copy the controller made for %s: rename it", r.ref.Kind, r.record.copy, t.view.Name)
	}
	for _, o := range meta.OwnerReferences {
		if o.UID == rev.UID {
			return nil
		}
	}
	owner := ownerOf(rev)
	patch := fmt.Appendf(nil, `{"metadata":{"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q}]}}`, owner.APIVersion, owner.Kind, owner.Name, owner.UID)
	if r.ref.Kind == configrev.ConfigMap {
		_, err = c.client.CoreV1().ConfigMaps(meta.Namespace).Patch(ctx, meta.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	} else {
		_, err = c.client.CoreV1().Secrets(meta.Namespace).Patch(ctx, meta.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	}
	if err != nil {
		return fmt.Errorf("adding revision %s to the owners of %s copy %s: %w", rev.Name, r.ref.Kind, meta.Name, err)
	}
	return nil
}

// copyMeta reads the metadata of r's copy: a ConfigMap's from the cache,
// a Secret's from the API (the controller has no Secret cache).
func (c *Controller) copyMeta(ctx context.Context, ns string, r resolvedRef) (*metav1.ObjectMeta, error) {
	if r.ref.Kind == configrev.ConfigMap {
		cm, err := c.configMaps.ConfigMaps(ns).Get(r.record.copy)
		if err != nil {
			return nil, err
		}
		return &cm.ObjectMeta, nil
	}
	s, err := c.client.CoreV1().Secrets(ns).Get(ctx, r.record.copy, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return &s.ObjectMeta, nil
}

// createCopy copies the object as this sync read it (or reads it again),
// after checking that its data is still the data the revision names.
func (c *Controller) createCopy(ctx context.Context, t *target, r resolvedRef, owner metav1.OwnerReference) error {
	ns, set := t.view.Namespace, t.view.Name
	obj := t.config.fresh[r.ref]
	var err error
	if obj == nil {
		if r.ref.Kind == configrev.ConfigMap {
			obj, err = c.client.CoreV1().ConfigMaps(ns).Get(ctx, r.ref.Name, metav1.GetOptions{})
		} else {
			obj, err = c.client.CoreV1().Secrets(ns).Get(ctx, r.ref.Name, metav1.GetOptions{})
		}
		if err != nil {
			return fmt.Errorf("reading %s to copy it: %w", r.ref, err)
		}
	}
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		cp, err := configrev.ConfigMapCopy(o, set)
		if err != nil {
			return err
		}
		if cp.Name != r.record.copy {
			return errConfigChanged
		}
		cp.OwnerReferences = []metav1.OwnerReference{owner}
		_, err = c.client.CoreV1().ConfigMaps(ns).Create(ctx, cp, metav1.CreateOptions{})
		return copyCreated(err, r)
	case *corev1.Secret:
		cp, err := configrev.SecretCopy(o, set)
		if err != nil {
			return err
		}
		if cp.Name != r.record.copy {
			return errConfigChanged
		}
		cp.OwnerReferences = []metav1.OwnerReference{owner}
		_, err = c.client.CoreV1().Secrets(ns).Create(ctx, cp, metav1.CreateOptions{})
		return copyCreated(err, r)
	}
	return fmt.Errorf("copying %s: unexpected object %T", r.ref, obj)
}

// copyCreated is the outcome of a copy's create: one made meanwhile (by
// an earlier controller) is looked at again by the next sync.
func copyCreated(err error, r resolvedRef) error {
	if err != nil {
		return fmt.Errorf("creating %s copy %s: %w", r.ref.Kind, r.record.copy, err)
	}
	return nil
}

// configRequeue is when a set that reads Secrets looks at them again.
func configRequeue(t *target, requeue time.Duration) time.Duration {
	if t.extended.Spec.ConfigRevisions == nil || len(t.extended.Spec.ConfigRevisions.Secrets) == 0 {
		return requeue
	}
	if requeue == 0 || requeue > secretRecheck {
		return secretRecheck
	}
	return requeue
}

// syncConfig resolves an extended set's objects before it is planned
// (resolveConfig). planned is false when the sync ends here: the caches
// of ConfigMaps are not there yet, or a hold stops a set that has no
// revision yet, whose status and event then say why.
func (c *Controller) syncConfig(ctx context.Context, t *target) (planned bool, requeue time.Duration, err error) {
	if t.extended.Spec.ConfigRevisions != nil && c.configWatch != nil && !c.configWatch.need() {
		return false, cacheLagRequeue, nil
	}
	ok, err := c.resolveConfig(ctx, t)
	if err != nil {
		return false, 0, err
	}
	if t.config != nil && t.config.hold != nil {
		h := t.config.hold
		c.warnOnce(t.key, t.view, planner.Warning{Reason: h.Reason, Object: "StatefulSet/" + t.view.Name, Message: h.Message})
	}
	if ok {
		return true, 0, nil
	}
	want := *t.extended.Status.DeepCopy()
	osts.ConfigCondition(t.extended, &want, t.config.hold, c.now())
	return false, configRequeue(t, 0), c.storeExtendedStatus(ctx, t, want)
}

// announceFirst keeps a sync from moving pods when the set's update
// revision changed without a new generation (its objects' data did): the
// status names the new update revision first, and the next sync acts.
// Without it, a watcher that saw the spec unchanged and the last status
// (the old update revision) would see a pod at that update revision
// deleted; a template change tells it by the generation. It reports
// whether it held the plan's steps back.
func announceFirst(t *target, set *appsv1.StatefulSet, stored appsv1.StatefulSetStatus, plan *planner.Plan) bool {
	if t.config == nil || plan.KeepStatus || len(plan.Steps) == 0 || stored.UpdateRevision == "" ||
		stored.ObservedGeneration != set.Generation || plan.Status.UpdateRevision == stored.UpdateRevision {
		return false
	}
	plan.Steps = nil
	return true
}
