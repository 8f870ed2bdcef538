package controller

import (
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// compactMeta holds the metadata planner.TrimPod keeps (see trimMeta) in
// less memory than metav1.ObjectMeta, for the thousands of pods a cache
// holds. What the pods of one set share is interned, not copied: the
// namespace, label keys and values, and the owner reference, so each pod
// pays for its name, UID and resource version and a few handles. The
// unique package drops an interned value once no record refers to it.
//
// A label whose value is the object's name (statefulset.kubernetes.io/
// pod-name) shares the name instead of being interned.
type compactMeta struct {
	name            string
	namespace       unique.Handle[string]
	uid             types.UID
	resourceVersion string
	created         metav1.Time
	deleted         *metav1.Time
	deletionGrace   *int64
	labels          []labelPair // nil when the object has no label map
	owners          []unique.Handle[ownerKey]
	hasOwners       bool // owners were a non-nil (maybe empty) slice
}

type labelPair struct {
	key, value unique.Handle[string] // a zero value: the value is the name
}

// ownerKey is a comparable metav1.OwnerReference; its booleans are 0 for
// unset, 1 for false and 2 for true.
type ownerKey struct {
	apiVersion, kind, name string
	uid                    types.UID
	controller, block      int8
}

func newCompactMeta(m *metav1.ObjectMeta) compactMeta {
	c := compactMeta{name: m.Name, namespace: intern(m.Namespace), uid: m.UID, resourceVersion: m.ResourceVersion,
		created: m.CreationTimestamp, deleted: m.DeletionTimestamp, deletionGrace: m.DeletionGracePeriodSeconds,
		hasOwners: m.OwnerReferences != nil}
	if m.Labels != nil {
		c.labels = make([]labelPair, 0, len(m.Labels))
		for k, v := range m.Labels {
			p := labelPair{key: unique.Make(k)}
			if v != m.Name {
				p.value = unique.Make(v)
			}
			c.labels = append(c.labels, p)
		}
	}
	if len(m.OwnerReferences) > 0 {
		c.owners = make([]unique.Handle[ownerKey], len(m.OwnerReferences))
		for i, r := range m.OwnerReferences {
			c.owners[i] = unique.Make(ownerKey{apiVersion: r.APIVersion, kind: r.Kind, name: r.Name, uid: r.UID,
				controller: boolKey(r.Controller), block: boolKey(r.BlockOwnerDeletion)})
		}
	}
	return c
}

// objectMeta returns new metadata equal to what newCompactMeta was given
// after trimMeta. Its owner references share their booleans with every
// other; callers never modify them.
func (c *compactMeta) objectMeta() metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: c.name, Namespace: value(c.namespace), UID: c.uid, ResourceVersion: c.resourceVersion,
		CreationTimestamp: c.created, DeletionTimestamp: c.deleted, DeletionGracePeriodSeconds: c.deletionGrace,
		Labels: c.labelMap(), OwnerReferences: c.ownerRefs()}
}

// Name, Namespace, UID and ResourceVersion are the object's.
func (c *compactMeta) Name() string            { return c.name }
func (c *compactMeta) Namespace() string       { return value(c.namespace) }
func (c *compactMeta) GetUID() types.UID       { return c.uid }
func (c *compactMeta) ResourceVersion() string { return c.resourceVersion }

// GetObjectMeta lets meta.Accessor, and so the cache's key and index
// functions, read a record: it returns new metadata each call, whose
// labels and owner references are made only if read (recordMeta).
func (c *compactMeta) GetObjectMeta() metav1.Object {
	return &recordMeta{ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: value(c.namespace), UID: c.uid,
		ResourceVersion: c.resourceVersion, CreationTimestamp: c.created, DeletionTimestamp: c.deleted,
		DeletionGracePeriodSeconds: c.deletionGrace}, c: c}
}

// recordMeta is a record's metadata as meta.Accessor shows it. The cache
// reads a record's name and namespace several times per pod event (its
// key, the namespace index); making its label map and owner references
// each time cost more than the rest of the event's handling, so they are
// made on first read. Like any copy from GetObjectMeta, setting a field
// changes only this copy.
type recordMeta struct {
	metav1.ObjectMeta
	c                      *compactMeta
	labelsMade, ownersMade bool
}

// GetLabels returns the record's labels, made on first read.
func (m *recordMeta) GetLabels() map[string]string {
	if !m.labelsMade {
		m.Labels, m.labelsMade = m.c.labelMap(), true
	}
	return m.Labels
}

// SetLabels replaces this copy's labels.
func (m *recordMeta) SetLabels(labels map[string]string) { m.Labels, m.labelsMade = labels, true }

// GetOwnerReferences returns the record's owner references, made on first
// read.
func (m *recordMeta) GetOwnerReferences() []metav1.OwnerReference {
	if !m.ownersMade {
		m.OwnerReferences, m.ownersMade = m.c.ownerRefs(), true
	}
	return m.OwnerReferences
}

// SetOwnerReferences replaces this copy's owner references.
func (m *recordMeta) SetOwnerReferences(refs []metav1.OwnerReference) {
	m.OwnerReferences, m.ownersMade = refs, true
}

// GetObjectKind implements runtime.Object for the records; cached objects
// carry no kind.
func (c *compactMeta) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

func (c *compactMeta) labelMap() map[string]string {
	if c.labels == nil {
		return nil
	}
	out := make(map[string]string, len(c.labels))
	for _, p := range c.labels {
		out[p.key.Value()] = c.labelValue(p)
	}
	return out
}

func (c *compactMeta) labelValue(p labelPair) string {
	if p.value == (unique.Handle[string]{}) {
		return c.name
	}
	return p.value.Value()
}

func (c *compactMeta) ownerRefs() []metav1.OwnerReference {
	if !c.hasOwners {
		return nil
	}
	out := make([]metav1.OwnerReference, len(c.owners))
	for i, h := range c.owners {
		out[i] = h.Value().ref()
	}
	return out
}

// controllerRef returns the owner reference marked controller, as
// metav1.GetControllerOf does, or nil.
func (c *compactMeta) controllerRef() *metav1.OwnerReference {
	for _, h := range c.owners {
		if k := h.Value(); k.controller == 2 {
			r := k.ref()
			return &r
		}
	}
	return nil
}

func (k ownerKey) ref() metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: k.apiVersion, Kind: k.kind, Name: k.name, UID: k.uid,
		Controller: boolOf(k.controller), BlockOwnerDeletion: boolOf(k.block)}
}

var sharedFalse, sharedTrue = false, true

func boolKey(b *bool) int8 {
	switch {
	case b == nil:
		return 0
	case *b:
		return 2
	}
	return 1
}

func boolOf(k int8) *bool {
	switch k {
	case 1:
		return &sharedFalse
	case 2:
		return &sharedTrue
	}
	return nil
}

// intern returns the handle of s; the empty string has the zero handle.
func intern(s string) unique.Handle[string] {
	if s == "" {
		return unique.Handle[string]{}
	}
	return unique.Make(s)
}

// value is the string of h; the zero handle is the empty string.
func value(h unique.Handle[string]) string {
	if h == (unique.Handle[string]{}) {
		return ""
	}
	return h.Value()
}

// deepCopy returns metadata sharing nothing mutable with c: the interned
// values are immutable; the slices and pointers are copied.
func (c *compactMeta) deepCopy() compactMeta {
	out := *c
	if c.deleted != nil {
		out.deleted = c.deleted.DeepCopy()
	}
	if c.deletionGrace != nil {
		g := *c.deletionGrace
		out.deletionGrace = &g
	}
	if c.labels != nil {
		out.labels = append(make([]labelPair, 0, len(c.labels)), c.labels...)
	}
	if c.owners != nil {
		out.owners = append(make([]unique.Handle[ownerKey], 0, len(c.owners)), c.owners...)
	}
	return out
}
