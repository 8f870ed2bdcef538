package migrate

import (
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// jsonField is the field of struct type t whose JSON name is name.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if strings.Split(f.Tag.Get("json"), ",")[0] == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// elem is t without pointers, slices and maps.
func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t
}

// typeAt is the type at a JSON path below t ("spec.x.y"), or false.
func typeAt(t reflect.Type, path string) (reflect.Type, bool) {
	for _, name := range strings.Split(path, ".") {
		f, ok := jsonField(elem(t), name)
		if !ok {
			return nil, false
		}
		t = f.Type
	}
	return t, true
}

// ownStruct says whether t is a struct of the extended kind's own API
// package: apps/v1 may lack any of its fields.
func ownStruct(t reflect.Type) bool {
	t = elem(t)
	return t.Kind() == reflect.Struct && t.PkgPath() == reflect.TypeFor[v1alpha1.StatefulSet]().PkgPath()
}

// Each row of specFields names a field the extended spec has, once, and
// is complete: a carried field is one apps/v1 has; a refused or stated
// one has its check, value and reason. (Whether every leaf of the spec
// has a row that decides it is TestEveryLeafOfTheExtendedSpecIsCarriedOrRefused's.)
func TestEveryDecisionIsWellFormed(t *testing.T) {
	decided := map[string]bool{}
	for _, f := range specFields {
		if decided[f.path] {
			t.Errorf("%s is decided twice", f.path)
		}
		decided[f.path] = true
	}
	set := reflect.TypeFor[v1alpha1.StatefulSet]()
	for _, f := range specFields {
		if _, ok := typeAt(set, f.path); !ok {
			t.Errorf("specFields decides %s, which the extended spec does not have", f.path)
		}
		if f.decision != carried {
			if f.accepted == nil || f.value == nil || f.why == "" {
				t.Errorf("%s is refused unless default but lacks its check, value or reason", f.path)
			}
			continue
		}
		if _, ok := typeAt(reflect.TypeFor[appsv1.StatefulSet](), f.path); !ok {
			t.Errorf("%s is carried, but apps/v1 has no such field", f.path)
		}
	}
}

// refusedExamples are refused values of fields where random values
// would hardly ever hit one (an enum's one refused value), or that the
// random filler leaves nil (an int-or-string behind a pointer).
var refusedExamples = map[string]func(*v1alpha1.StatefulSet){
	"spec.scaleStrategy": func(s *v1alpha1.StatefulSet) {
		s.Spec.ScaleStrategy = &v1alpha1.ScaleStrategy{MaxUnavailable: new(intstr.FromInt32(10))}
	},
	"spec.updateStrategy.type": func(s *v1alpha1.StatefulSet) {
		s.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RecreateStatefulSetStrategyType}
	},
}

// Each refused field's check looks at that field: some value of it, all
// else at the defaults, is refused (or, for a stated one, stated as lost)
// with a reason naming it.
func TestEachRefusedFieldIsNamedWhenNotAtItsDefault(t *testing.T) {
	base, err := toExtended(appsSet())
	if err != nil {
		t.Fatal(err)
	}
	if got := extendedOnly(base); got != nil {
		t.Fatalf("a converted apps/v1 set is refused: %q", got)
	}
	for _, f := range specFields {
		if f.decision == carried {
			continue
		}
		t.Run(f.path, func(t *testing.T) {
			for seed := range int64(201) {
				set := base.DeepCopy()
				if example, ok := refusedExamples[f.path]; ok && seed == 200 {
					example(set)
				} else {
					fillAt(t, reflect.ValueOf(set).Elem(), f.path, randfill.NewWithSeed(seed).NilChance(0))
				}
				reasons := extendedOnly(set)
				if f.decision == stated {
					reasons = losses(set)
				}
				if f.accepted(&set.Spec) {
					continue
				}
				for _, r := range reasons {
					if strings.HasPrefix(r, f.path+" is ") {
						return
					}
				}
				t.Fatalf("refused with %q, none naming %s", reasons, f.path)
			}
			t.Fatalf("no random value of %s was refused: its check does not read it", f.path)
		})
	}
}

// fillAt fills the field at path below v with random values, making the
// structs on the way.
func fillAt(t *testing.T, v reflect.Value, path string, r *randfill.Filler) {
	t.Helper()
	for _, name := range strings.Split(path, ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		f, ok := jsonField(v.Type(), name)
		if !ok {
			t.Fatalf("no field %s in %s", name, v.Type())
		}
		v = v.FieldByIndex(f.Index)
	}
	r.Fill(v.Addr().Interface())
}
