package configrev

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// Side is one revision's copy of an object, as history shows it: its
// copy's name, each key's hash and, for a ConfigMap alone, each key's
// value. A Secret's side never holds values.
type Side struct {
	Copy   string
	Hashes map[string]string
	Values map[string]string
}

// KeyChange is one key that differs between two sides: added, removed
// or changed, with the values on each side for a ConfigMap.
type KeyChange struct {
	Key    string
	Change string // "added", "removed" or "changed"
	// HashA and HashB are the key's hashes; ValueA and ValueB its
	// values, for a ConfigMap only.
	HashA, HashB   string
	ValueA, ValueB string
}

// ObjectChange is one object whose data differs between two revisions
// (or that only one of them reads).
type ObjectChange struct {
	Kind       Kind
	Name       string
	CopyA      string
	CopyB      string
	Keys       []KeyChange
	Unreadable string // why the keys could not be compared, if so
}

// CompareKeys lists the keys of a and b that differ, by key name.
func CompareKeys(kind Kind, a, b Side) []KeyChange {
	var out []KeyChange
	for _, k := range sortedKeys(a.Hashes) {
		hb, ok := b.Hashes[k]
		switch {
		case !ok:
			out = append(out, keyChange(kind, k, "removed", a, b))
		case hb != a.Hashes[k]:
			out = append(out, keyChange(kind, k, "changed", a, b))
		}
	}
	for _, k := range sortedKeys(b.Hashes) {
		if _, ok := a.Hashes[k]; !ok {
			out = append(out, keyChange(kind, k, "added", a, b))
		}
	}
	slices.SortStableFunc(out, func(x, y KeyChange) int { return cmp.Compare(x.Key, y.Key) })
	return out
}

func keyChange(kind Kind, key, change string, a, b Side) KeyChange {
	c := KeyChange{Key: key, Change: change, HashA: a.Hashes[key], HashB: b.Hashes[key]}
	if kind == ConfigMap {
		c.ValueA, c.ValueB = a.Values[key], b.Values[key]
	}
	return c
}

// Render writes the changes for a person: per object its copies, then
// per key what changed; a ConfigMap's values as a diff (through diff,
// which writes a unified diff of two texts), a Secret's hashes only.
func Render(w io.Writer, changes []ObjectChange, diff func(w io.Writer, a, b string)) {
	for _, o := range changes {
		fmt.Fprintf(w, "%s %s: %s -> %s\n", o.Kind, o.Name, orNone(o.CopyA), orNone(o.CopyB))
		if o.Unreadable != "" {
			fmt.Fprintf(w, "  keys not compared: %s\n", o.Unreadable)
		}
		for _, k := range o.Keys {
			if o.Kind == Secret {
				fmt.Fprintf(w, "  %s %s (sha256 %s -> %s)\n", mark(k.Change), k.Key, orNone(k.HashA), orNone(k.HashB))
				continue
			}
			fmt.Fprintf(w, "  %s %s\n", mark(k.Change), k.Key)
			diff(w, k.ValueA, k.ValueB)
		}
	}
}

func mark(change string) string {
	switch change {
	case "added":
		return "+"
	case "removed":
		return "-"
	}
	return "~"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
