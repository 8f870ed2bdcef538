package defaults

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// TestStatefulSetAcceptsANilPointerAnywhere allocates every pointer of a
// set (and one element of every list), then, for each pointer in turn,
// leaves that one nil and checks that StatefulSet neither panics nor
// differs from the scheme's defaults.
func TestStatefulSetAcceptsANilPointerAnywhere(t *testing.T) {
	StatefulSet(nil, Options{MaxUnavailable: true})
	total := nilNth(reflect.ValueOf(fullSet()).Elem(), -1)
	if total < 300 {
		t.Fatalf("a full set has %d pointers, expected the hundreds of a pod template", total)
	}
	for n := range total {
		set := fullSet()
		nilNth(reflect.ValueOf(set).Elem(), n)
		checkAgainstScheme(t, n, set, Options{MaxUnavailable: true}) // the gate as 1.37 ships it
	}
	t.Logf("%d pointers left nil one at a time", total)
}

// fullSet returns a StatefulSet with every pointer allocated and every
// list of one element, down to a depth no apps/v1 type reaches.
func fullSet() *appsv1.StatefulSet {
	set := &appsv1.StatefulSet{}
	allocate(reflect.ValueOf(set).Elem(), 0)
	return set
}

// allocate fills v with empty values at every pointer and list.
func allocate(v reflect.Value, depth int) {
	if depth > 40 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		allocate(v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				allocate(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		allocate(v.Index(0), depth+1)
	}
}

// nilNth sets the n-th non-nil pointer under v (in field order) to nil and
// returns how many pointers it walked past; with n < 0 it only counts.
func nilNth(v reflect.Value, n int) int {
	seen := 0
	var walk func(reflect.Value) bool
	walk = func(v reflect.Value) bool {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				return false
			}
			if seen == n {
				v.SetZero()
				return true
			}
			seen++
			return walk(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Field(i).CanSet() && walk(v.Field(i)) {
					return true
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				if walk(v.Index(i)) {
					return true
				}
			}
		}
		return false
	}
	walk(v)
	return seen
}
