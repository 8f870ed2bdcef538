package setops

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// Kind says which kind of StatefulSet a reference names: setkind.Kind,
// whose zero value is AnyKind.
type Kind = setkind.Kind

const (
	// AnyKind is a bare name: the apps/v1 set of that name, or, when there
	// is none, the extended set of that name.
	AnyKind = setkind.Any
	// AppsV1 is apps/v1's StatefulSet (sts).
	AppsV1 = setkind.AppsV1
	// ExtendedKind is apps.ordinal.dev/v1alpha1's StatefulSet (osts).
	ExtendedKind = setkind.Extended
)

// kindSpellings are the spellings kubectl accepts for each kind before the
// slash, lower-cased.
var kindSpellings = map[string]Kind{
	"statefulset": AppsV1, "statefulsets": AppsV1, "sts": AppsV1,
	"statefulset.apps": AppsV1, "statefulsets.apps": AppsV1,
	"osts": ExtendedKind, "statefulset.apps.ordinal.dev": ExtendedKind, "statefulsets.apps.ordinal.dev": ExtendedKind,
}

// Ref names one set: a kind (or AnyKind for a bare name) and a name.
type Ref struct {
	Kind Kind
	Name string
}

// ErrNotAStatefulSet marks a reference to another kind of object.
var ErrNotAStatefulSet = errors.New("only statefulsets are supported")

// ParseRef reads "web", "sts/web", "statefulset/web" (kubectl's spellings
// of apps/v1), "osts/web" or "statefulsets.apps.ordinal.dev/web".
func ParseRef(arg string) (Ref, error) {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok {
		name, kind = arg, ""
	}
	k, known := kindSpellings[strings.ToLower(kind)]
	switch {
	case kind == "":
		k = AnyKind
	case !known:
		return Ref{}, fmt.Errorf("%s: %w", arg, ErrNotAStatefulSet)
	}
	if name == "" || strings.Contains(name, "/") {
		return Ref{}, fmt.Errorf("%q is not a statefulset name", arg)
	}
	return Ref{Kind: k, Name: name}, nil
}

// ParseKind reads a kind on its own, as `--to` takes it: an apiVersion
// ("apps/v1", "apps.ordinal.dev/v1alpha1") or a spelling ParseRef takes
// before the slash.
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(s) {
	case "apps/v1":
		return AppsV1, nil
	case "apps.ordinal.dev/v1alpha1":
		return ExtendedKind, nil
	}
	if k, ok := kindSpellings[strings.ToLower(s)]; ok {
		return k, nil
	}
	return AnyKind, fmt.Errorf("unknown kind %q: use apps/v1 (sts) or apps.ordinal.dev/v1alpha1 (osts)", s)
}
