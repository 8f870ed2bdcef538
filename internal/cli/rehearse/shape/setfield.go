package shape

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// step is one step of a field path: a key of an object or an index of a
// list.
type step struct {
	key   string
	index int
	list  bool
}

// setField sets one field of the set, PATH=VALUE: PATH is dotted keys
// from the object's root (spec.replicas), a list index in brackets
// (containers[0]), a key with dots quoted in brackets
// (annotations["example.com/a"]) or its dots escaped (example\.com/a).
// VALUE is JSON where it reads as JSON (3, true, {"a":1}, "quoted"), a
// string otherwise; under labels, annotations and nodeSelector always a
// string. The result must read back as the set's kind.
func setField(s Set, arg string) (Set, error) {
	path, value, ok := strings.Cut(arg, "=")
	if !ok || path == "" {
		return Set{}, errors.New("want PATH=VALUE, e.g. spec.template.spec.containers[0].image=example/app:v2")
	}
	steps, err := parsePath(path)
	if err != nil {
		return Set{}, err
	}
	if err := settable(steps); err != nil {
		return Set{}, err
	}
	var obj any = s.Apps
	if s.Extended != nil {
		obj = s.Extended
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return Set{}, err
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return Set{}, err
	}
	if err := put(root, steps, parseValue(steps, value)); err != nil {
		return Set{}, err
	}
	return decodeSet(root, s.Extended == nil)
}

// settable refuses the fields a change may not set: the set's identity,
// kind and status.
func settable(steps []step) error {
	switch {
	case steps[0].key == "status", steps[0].key == "apiVersion", steps[0].key == "kind":
		return fmt.Errorf("%s is not the change's to set", steps[0].key)
	case steps[0].key == "metadata" && len(steps) > 1 && (steps[1].key == "name" || steps[1].key == "namespace"):
		return errors.New("the set's name and namespace are not the change's to set")
	case steps[0].key != "spec" && steps[0].key != "metadata":
		return fmt.Errorf("no field %q at the root of a StatefulSet: start with spec or metadata", steps[0].key)
	}
	return nil
}

// parsePath reads a field path into steps.
func parsePath(path string) ([]step, error) {
	var steps []step
	var key strings.Builder
	flush := func() {
		if key.Len() > 0 {
			steps = append(steps, step{key: key.String()})
			key.Reset()
		}
	}
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\' && i+1 < len(path) && path[i+1] == '.':
			key.WriteByte('.')
			i++
		case c == '.':
			if key.Len() == 0 && (i == 0 || path[i-1] != ']') {
				return nil, fmt.Errorf("empty key in path %q", path)
			}
			flush()
		case c == '[':
			flush()
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [ in path %q", path)
			}
			st, err := bracket(path[i+1 : i+end])
			if err != nil {
				return nil, fmt.Errorf("path %q: %w", path, err)
			}
			steps = append(steps, st)
			i += end
		default:
			key.WriteByte(c)
		}
	}
	flush()
	if len(steps) == 0 || steps[0].list {
		return nil, fmt.Errorf("path %q names no field", path)
	}
	return steps, nil
}

// bracket reads what is inside [ ]: an index, or a quoted key.
func bracket(inside string) (step, error) {
	if n, err := strconv.Atoi(inside); err == nil {
		if n < 0 {
			return step{}, fmt.Errorf("negative index %d", n)
		}
		return step{index: n, list: true}, nil
	}
	if key, err := strconv.Unquote(inside); err == nil {
		return step{key: key}, nil
	}
	return step{}, fmt.Errorf("[%s] is neither an index nor a quoted key", inside)
}

// stringMaps are the fields whose values are always strings.
var stringMaps = map[string]bool{"labels": true, "annotations": true, "nodeSelector": true}

// parseValue reads VALUE as JSON, or as a string where it is not JSON or
// the field holds only strings.
func parseValue(steps []step, value string) any {
	if len(steps) >= 2 && stringMaps[steps[len(steps)-2].key] && !steps[len(steps)-1].list {
		if s, err := strconv.Unquote(value); err == nil {
			return s
		}
		return value
	}
	var v any
	if err := json.Unmarshal([]byte(value), &v); err == nil {
		return v
	}
	return value
}

// put sets the value at the path, making the objects on the way; a list
// must already have the index.
func put(root map[string]any, steps []step, value any) error {
	var cur any = root
	for i, st := range steps {
		last := i == len(steps)-1
		var next any
		switch {
		case st.list:
			list, ok := cur.([]any)
			if !ok || st.index >= len(list) {
				return fmt.Errorf("%s has no item %d", where(steps[:i]), st.index)
			}
			if last {
				list[st.index] = value
				return nil
			}
			next = list[st.index]
		default:
			obj, ok := cur.(map[string]any)
			if !ok {
				return fmt.Errorf("%s is not an object", where(steps[:i]))
			}
			if last {
				obj[st.key] = value
				return nil
			}
			if obj[st.key] == nil {
				obj[st.key] = map[string]any{}
				if steps[i+1].list {
					return fmt.Errorf("%s is empty: it has no item %d", where(steps[:i+1]), steps[i+1].index)
				}
			}
			next = obj[st.key]
		}
		cur = next
	}
	return nil
}

// where is the path of steps, for an error.
func where(steps []step) string {
	var b strings.Builder
	for _, st := range steps {
		if st.list {
			fmt.Fprintf(&b, "[%d]", st.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(st.key)
	}
	if b.Len() == 0 {
		return "the set"
	}
	return b.String()
}

// decodeSet reads the changed object back as its kind, refusing a field
// the kind does not have.
func decodeSet(root map[string]any, apps bool) (Set, error) {
	raw, err := json.Marshal(root)
	if err != nil {
		return Set{}, err
	}
	dec := func(into any) error {
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.DisallowUnknownFields()
		if err := d.Decode(into); err != nil {
			return fmt.Errorf("the changed set does not read as a StatefulSet: %w", err)
		}
		return nil
	}
	if apps {
		var s appsv1.StatefulSet
		return Set{Apps: &s}, dec(&s)
	}
	var s v1alpha1.StatefulSet
	return Set{Extended: &s}, dec(&s)
}
