package controller

import (
	"reflect"
	"testing"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// A memory that is not registered would keep a deleted set for good:
// every memory reachable from a controller of both kinds, through its
// fields and its mechanisms' fields, is one that a deletion forgets, and
// every registered one is reachable (none made and lost).
func TestEveryMemoryIsForgottenWithItsSet(t *testing.T) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{v1alpha1.Resource: "StatefulSetList"})
	c, _ := newTestControllerWith(t, Options{Extended: ostsclient.New(dyn)}, nil)
	registered := map[memory]bool{}
	for _, m := range c.memories.all {
		registered[m] = true
	}
	found := map[memory]bool{}
	walkMemories(reflect.ValueOf(c), "Controller", map[uintptr]bool{}, func(path string, m memory) {
		found[m] = true
		if !registered[m] {
			t.Errorf("%s (%T) is a memory no deletion forgets: make it with newPerSet, or register it", path, m)
		}
	})
	if len(found) != len(registered) || len(found) < 10 {
		t.Errorf("%d memories reachable, %d registered", len(found), len(registered))
	}
}

// Forgetting a set empties every memory of it, and only of it.
func TestForgettingASetEmptiesEveryMemoryOfIt(t *testing.T) {
	c, _ := newTestController(t)
	for _, key := range []string{"ns/web", "ns/db"} {
		for _, m := range c.memories.all {
			registerKey(t, m, key)
		}
	}
	c.memories.forget("ns/web")
	for _, m := range c.memories.all {
		if m.has("ns/web") || !m.has("ns/db") {
			t.Errorf("after forgetting ns/web, %T holds ns/web %v and ns/db %v", m, m.has("ns/web"), m.has("ns/db"))
		}
	}
}

// registerKey makes m hold something about key.
func registerKey(t *testing.T, m memory, key string) {
	t.Helper()
	up, ok := m.(interface{ touch(key string) })
	if !ok {
		t.Fatalf("%T cannot be made to hold a set", m)
	}
	up.touch(key)
}

// touch makes m hold a zero value for key.
func (m *perSet[T]) touch(key string) { m.update(key, func(*T) {}) }

var (
	memoryType   = reflect.TypeFor[memory]()
	memoriesType = reflect.TypeFor[*memories]()
	ourPackage   = reflect.TypeFor[Controller]().PkgPath()
)

// walkMemories calls f with each memory reachable from v through
// pointers, interfaces and struct fields of this package's types, each
// once, by the path of fields that reached it.
func walkMemories(v reflect.Value, path string, seen map[uintptr]bool, f func(string, memory)) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walkMemories(v.Elem(), path, seen, f)
		}
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] || v.Type() == memoriesType {
			return
		}
		seen[v.Pointer()] = true
		if v.Type().Implements(memoryType) {
			f(path, v.Interface().(memory))
			return
		}
		walkMemories(v.Elem(), path, seen, f)
	case reflect.Struct:
		if v.Type().PkgPath() != ourPackage {
			return
		}
		if !v.CanAddr() {
			cp := reflect.New(v.Type()).Elem()
			cp.Set(v)
			v = cp
		}
		for i := range v.NumField() {
			field := v.Field(i)
			// Unexported fields are read through their address.
			field = reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem()
			walkMemories(field, path+"."+v.Type().Field(i).Name, seen, f)
		}
	}
}
