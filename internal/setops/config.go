package setops

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// ConfigDiff is what changed between revisions a and b of the objects
// whose data the set's revisions hold: per object its two copies and the
// keys that differ, with a ConfigMap's values and a Secret's key hashes
// only (read from its copy's annotation; its values are never read into
// the result). None for revisions without such objects.
func (t *Target) ConfigDiff(ctx context.Context, revs []*appsv1.ControllerRevision, a, b int64) ([]configrev.ObjectChange, error) {
	sides := [2]map[configrev.Ref]string{}
	for i, n := range []int64{a, b} {
		rev, err := FindRevision(revs, n)
		if err != nil {
			return nil, err
		}
		records, err := configrev.Records(rev)
		if err != nil {
			return nil, err
		}
		sides[i] = map[configrev.Ref]string{}
		for _, r := range records {
			sides[i][configrev.Ref{Kind: r.Kind, Name: r.Name}] = r.Copy
		}
	}
	var out []configrev.ObjectChange
	for _, ref := range unionRefs(sides[0], sides[1]) {
		copyA, copyB := sides[0][ref], sides[1][ref]
		if copyA == copyB {
			continue
		}
		out = append(out, t.objectChange(ctx, ref, copyA, copyB))
	}
	return out, nil
}

func unionRefs(a, b map[configrev.Ref]string) []configrev.Ref {
	all := map[configrev.Ref]bool{}
	for r := range a {
		all[r] = true
	}
	for r := range b {
		all[r] = true
	}
	var out []configrev.Ref
	for r := range all {
		out = append(out, r)
	}
	configrev.SortRefs(out)
	return out
}

// objectChange reads both copies of ref and compares their keys.
func (t *Target) objectChange(ctx context.Context, ref configrev.Ref, copyA, copyB string) configrev.ObjectChange {
	o := configrev.ObjectChange{Kind: ref.Kind, Name: ref.Name, CopyA: copyA, CopyB: copyB}
	var sides [2]configrev.Side
	for i, name := range []string{copyA, copyB} {
		if name == "" {
			continue
		}
		side, err := t.readCopy(ctx, ref.Kind, name)
		if err != nil {
			o.Unreadable = err.Error()
			return o
		}
		sides[i] = side
	}
	o.Keys = configrev.CompareKeys(ref.Kind, sides[0], sides[1])
	return o
}

// readCopy reads one copy: a ConfigMap's values and hashes, a Secret's
// hashes from its annotation alone.
func (t *Target) readCopy(ctx context.Context, kind configrev.Kind, name string) (configrev.Side, error) {
	ns := t.Set.Namespace
	if kind == configrev.ConfigMap {
		cm, err := t.Client.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return configrev.Side{}, copyErr(kind, name, err)
		}
		values := make(map[string]string, len(cm.Data)+len(cm.BinaryData))
		for k, v := range cm.Data {
			values[k] = v
		}
		for k, v := range cm.BinaryData {
			values[k] = fmt.Sprintf("(%d bytes of binary data)", len(v))
		}
		return configrev.Side{Copy: name, Hashes: configrev.OfConfigMap(cm).KeyHashes(), Values: values}, nil
	}
	s, err := t.Client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return configrev.Side{}, copyErr(kind, name, err)
	}
	var hashes map[string]string
	if err := json.Unmarshal([]byte(s.Annotations[v1alpha1.ConfigKeysAnnotation]), &hashes); err != nil {
		return configrev.Side{}, fmt.Errorf("copy %s of a Secret has no key hashes: %w", name, err)
	}
	return configrev.Side{Copy: name, Hashes: hashes}, nil
}

func copyErr(kind configrev.Kind, name string, err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s %s is gone (its revisions were deleted)", kind, name)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("you may not read %s %s", kind, name)
	}
	return fmt.Errorf("reading %s %s: %w", kind, name, err)
}

// configView is o's set as the controller plans it when its revisions
// hold its objects' data (spec.configRevisions): the template reads the
// copies the objects' data map to now, so that a data change shows as a
// new update revision and nothing else does. An object the caller may
// not read keeps the copy the update revision reads (its change, if any,
// is not seen); a missing one holds the set at its update revision, as
// the controller does (resolveConfig).
func (t *Target) configView(ctx context.Context, o *Observed) error {
	if t.Extended == nil || t.Extended.Spec.ConfigRevisions == nil {
		return nil
	}
	update := revisionNamed(o.Revisions, t.Extended.Status.UpdateRevision)
	recorded := map[configrev.Ref]string{}
	if update != nil {
		records, err := configrev.Records(update)
		if err != nil {
			return err
		}
		for _, r := range records {
			recorded[configrev.Ref{Kind: r.Kind, Name: r.Name}] = r.Copy
		}
	}
	copies := map[configrev.Ref]string{}
	for _, ref := range configrev.Refs(&o.Set.Spec.Template, t.Extended.Spec.ConfigRevisions) {
		key := configrev.Ref{Kind: ref.Kind, Name: ref.Name}
		name, found, err := t.copyNow(ctx, key)
		switch {
		case apierrors.IsForbidden(err) && recorded[key] != "":
			copies[key] = recorded[key]
		case err != nil:
			return fmt.Errorf("reading %s: %w", key, err)
		case found:
			copies[key] = name
		case !ref.Optional:
			return t.holdView(o, update)
		}
	}
	set := o.Set.DeepCopy()
	set.Spec.Template = *configrev.Rewrite(&set.Spec.Template, copies)
	o.Set = set
	return nil
}

// copyNow is the name of the copy the object's data maps to now: its own
// name when it is already one of the set's copies.
func (t *Target) copyNow(ctx context.Context, ref configrev.Ref) (string, bool, error) {
	var meta *metav1.ObjectMeta
	var data configrev.Data
	if ref.Kind == configrev.ConfigMap {
		cm, err := t.Client.CoreV1().ConfigMaps(t.Set.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return "", false, notFoundIsAbsent(err)
		}
		meta, data = &cm.ObjectMeta, configrev.OfConfigMap(cm)
	} else {
		s, err := t.Client.CoreV1().Secrets(t.Set.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return "", false, notFoundIsAbsent(err)
		}
		meta, data = &s.ObjectMeta, configrev.OfSecret(s)
	}
	if configrev.IsCopyFor(meta.Labels, t.Set.Name) {
		return meta.Name, true, nil
	}
	return configrev.CopyName(meta.Name, data.Hash()), true, nil
}

func notFoundIsAbsent(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// holdView puts the update revision's template in o's set, as the
// controller holds a set whose object is missing; without one the set is
// left as it is (the controller makes no pod, and says so in status).
func (t *Target) holdView(o *Observed, update *appsv1.ControllerRevision) error {
	if update == nil {
		return nil
	}
	set, err := revision.Apply(o.Set, update)
	if err != nil {
		return fmt.Errorf("applying revision %s: %w", update.Name, err)
	}
	o.Set = set
	return nil
}

func revisionNamed(revs []*appsv1.ControllerRevision, name string) *appsv1.ControllerRevision {
	for _, r := range revs {
		if r.Name == name {
			return r
		}
	}
	return nil
}
