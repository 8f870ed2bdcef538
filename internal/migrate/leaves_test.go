package migrate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// leaf is one leaf field of the extended spec: its JSON path ("[]" after
// a list's name, "{}" after a map's), and the Go field indexes that reach
// it, with -1 for a list's element or a map's value.
type leaf struct {
	path  string
	steps [][]int
}

// leaves walks t, the type at path, down to its leaves: a field of a
// struct of the extended kind's own package is walked into, through
// pointers, lists and maps; anything else (a scalar, a struct of another
// package such as a pod template or an int-or-string) is a leaf, set as a
// whole.
func leaves(t reflect.Type, path string, steps [][]int) []leaf {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && ownStruct(t.Elem()):
		return leaves(t.Elem(), path+"[]", append(clone(steps), []int{-1}))
	case t.Kind() == reflect.Map && ownStruct(t.Elem()):
		return leaves(t.Elem(), path+"{}", append(clone(steps), []int{-1}))
	case t.Kind() != reflect.Struct || !ownStruct(t):
		return []leaf{{path: path, steps: steps}}
	}
	var out []leaf
	for i := range t.NumField() {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		out = append(out, leaves(f.Type, path+"."+name, append(clone(steps), f.Index))...)
	}
	if len(out) == 0 {
		// A struct of our own with no field is a leaf of its own.
		out = append(out, leaf{path: path, steps: steps})
	}
	return out
}

func clone(steps [][]int) [][]int { return append([][]int(nil), steps...) }

// set gives the leaf of v (a spec) a value from fill, making the
// structs, one-element lists and one-entry maps on the way.
func (l leaf) set(v reflect.Value, fill func(reflect.Value)) {
	setAt(v, l.steps, fill)
}

func setAt(v reflect.Value, steps [][]int, fill func(reflect.Value)) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	if len(steps) == 0 {
		fill(v)
		return
	}
	switch step := steps[0]; {
	case v.Kind() == reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		setAt(v.Index(0), steps[1:], fill)
	case v.Kind() == reflect.Map:
		elem := reflect.New(v.Type().Elem()).Elem()
		setAt(elem, steps[1:], fill)
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		v.SetMapIndex(reflect.ValueOf("k").Convert(v.Type().Key()), elem)
	default:
		setAt(v.FieldByIndex(step), steps[1:], fill)
	}
}

// decidingRow is the row of specFields that decides path: the row of the
// path itself or of the nearest field above it.
func decidingRow(path string) (field, bool) {
	plain := strings.NewReplacer("[]", "", "{}", "").Replace(path)
	for p := plain; p != ""; {
		for _, f := range specFields {
			if f.path == p {
				return f, true
			}
		}
		i := strings.LastIndex(p, ".")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return field{}, false
}

// valueAt reads the JSON path below a decoded JSON document: [] is a
// list's first element, {} a map's only value.
func valueAt(doc any, path string) (any, bool) {
	for _, part := range strings.Split(strings.TrimPrefix(path, "spec."), ".") {
		name, rest, _ := strings.Cut(part, "[]")
		name, mapped := strings.CutSuffix(name, "{}")
		m, ok := doc.(map[string]any)
		if !ok {
			return nil, false
		}
		if doc, ok = m[name]; !ok {
			return nil, false
		}
		switch {
		case rest == "" && part != name && !mapped:
			list, ok := doc.([]any)
			if !ok || len(list) == 0 {
				return nil, false
			}
			doc = list[0]
		case mapped:
			for _, v := range doc.(map[string]any) {
				doc = v
			}
		}
	}
	return doc, true
}

// specJSON is spec as decoded JSON; nil when random values left it
// without a JSON form (a managed-fields entry of random bytes).
func specJSON(spec any) any {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil
	}
	return doc
}

// validFields gives managed-fields entries of a random template JSON that
// decodes, so that the template has a JSON form.
func validFields(f *metav1.FieldsV1, _ randfill.Continue) { f.SetRawBytes([]byte("{}")) }

// leafExamples are values of leaves that random values would hardly ever
// hit: an enum's one refused value.
var leafExamples = map[string]func(*v1alpha1.StatefulSet){
	"spec.updateStrategy.type": func(s *v1alpha1.StatefulSet) {
		s.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RecreateStatefulSetStrategyType}
	},
}

// carriedTo checks that the leaf at path, of value got, reaches the
// apps/v1 set the migration makes: a scalar as it is; a struct or list
// of another package (a pod template, which the migration defaults as
// the API server would) changed from the base's value there. It returns
// why not, or "".
func carriedTo(apps *appsv1.StatefulSet, path, row string, got, base any) string {
	to, ok := valueAt(specJSON(apps.Spec), path)
	scalar := true
	switch got.(type) {
	case map[string]any, []any:
		scalar = false
	}
	switch {
	case !ok:
		return fmt.Sprintf("carried by %s, but the apps/v1 set has no value there", row)
	case scalar && !equality.Semantic.DeepEqual(to, got):
		return fmt.Sprintf("carried by %s, but the apps/v1 set has %v for %v", row, to, got)
	case !scalar && equality.Semantic.DeepEqual(to, base):
		return fmt.Sprintf("carried by %s, but the apps/v1 set keeps the base's value there", row)
	}
	return ""
}

// leafTries is how many random values a leaf is given before its
// decision is called missing.
const leafTries = 200

// Every leaf of the extended spec, set on its own to a value other than
// its default, must be decided for a migration to apps/v1: carried (the
// value is at the same path of the apps/v1 set the migration makes) or
// refused with a reason naming its field or a field above it. A decision
// for a whole struct decides a leaf inside it only if that leaf, set
// alone, is carried or refused: a leaf added later to nodeFailurePolicy
// or scaleStrategy that the struct's check does not read fails here.
func TestEveryLeafOfTheExtendedSpecIsCarriedOrRefused(t *testing.T) {
	base, err := toExtended(appsSet())
	if err != nil {
		t.Fatal(err)
	}
	if got := extendedOnly(base); got != nil {
		t.Fatalf("a converted apps/v1 set is refused: %q", got)
	}
	all := leaves(reflect.TypeFor[v1alpha1.StatefulSetSpec](), "spec", nil)
	if len(all) < 40 {
		t.Fatalf("found %d leaves; the walk is broken", len(all))
	}
	for _, l := range all {
		t.Run(l.path, func(t *testing.T) {
			row, ok := decidingRow(l.path)
			if !ok {
				t.Fatalf("%s has no decision for a migration to apps/v1: add it to specFields as carried, refusedUnlessDefault or stated", l.path)
			}
			if why := decided(t, base, l, row); why != "" {
				t.Fatalf("%s is undecided: %s", l.path, why)
			}
		})
	}
}

// decided sets the leaf alone to random values and returns "" once one
// shows the row's decision, or why none did.
func decided(t *testing.T, base *v1alpha1.StatefulSet, l leaf, row field) string {
	t.Helper()
	baseDoc, _ := valueAt(specJSON(base.Spec), l.path)
	baseApps, _ := valueAt(specJSON(toAppsV1(base).Spec), l.path)
	moved := false
	for seed := range int64(leafTries) + 1 {
		set := base.DeepCopy()
		if example, ok := leafExamples[l.path]; ok && seed == leafTries {
			example(set)
		} else {
			filler := randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 2).Funcs(validFields)
			l.set(reflect.ValueOf(&set.Spec).Elem(), func(v reflect.Value) { filler.Fill(v.Addr().Interface()) })
		}
		got, ok := valueAt(specJSON(set.Spec), l.path)
		if !ok || equality.Semantic.DeepEqual(got, baseDoc) {
			continue // the value is the default, or has no JSON form
		}
		moved = true
		if row.decision == carried {
			return carriedTo(toAppsV1(set), l.path, row.path, got, baseApps)
		}
		reasons := extendedOnly(set)
		if row.decision == stated {
			reasons = losses(set)
		}
		for _, r := range reasons {
			if strings.HasPrefix(r, row.path+" is ") {
				return ""
			}
		}
	}
	if !moved {
		return "no random value of it shows in the spec's JSON; give it an example in leafExamples"
	}
	return fmt.Sprintf("decided by %s, whose check accepts every value of this leaf tried (%d)", row.path, leafTries)
}
