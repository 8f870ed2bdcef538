package main

import (
	"fmt"
	"strconv"
	"strings"
)

// patch is the changes to make to every version's schema.
type patch struct {
	trims  list
	bounds list
}

// boundKeywords are the keywords -bound may set.
var boundKeywords = map[string]bool{"maxLength": true, "maxItems": true, "maxProperties": true}

func (p patch) apply(crd map[string]any) error {
	spec, _ := crd["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	if len(versions) == 0 {
		return fmt.Errorf("no spec.versions: not a CustomResourceDefinition")
	}
	for _, v := range versions {
		version, _ := v.(map[string]any)
		schema, _ := lookup(version, "schema", "openAPIV3Schema").(map[string]any)
		if schema == nil {
			return fmt.Errorf("version %v has no openAPIV3Schema", version["name"])
		}
		if err := p.applySchema(schema); err != nil {
			return fmt.Errorf("version %v: %w", version["name"], err)
		}
	}
	return nil
}

func (p patch) applySchema(schema map[string]any) error {
	for _, path := range p.trims {
		node, err := resolve(schema, path)
		if err != nil {
			return err
		}
		description, ok := node["description"]
		stripDescriptions(node)
		if ok {
			node["description"] = description
		}
	}
	for _, b := range p.bounds {
		if err := setBound(schema, b); err != nil {
			return err
		}
	}
	return nil
}

// setBound applies one PATH:KEYWORD=N. A bound the schema already has with
// another value is an error: this tool only adds bounds, never loosens or
// tightens the generator's.
func setBound(schema map[string]any, bound string) error {
	path, assignment, ok := strings.Cut(bound, ":")
	keyword, value, ok2 := strings.Cut(assignment, "=")
	if !ok || !ok2 || !boundKeywords[keyword] {
		return fmt.Errorf("bound %q: want PATH:KEYWORD=N with KEYWORD maxLength, maxItems or maxProperties", bound)
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("bound %q: %q is not a non-negative integer", bound, value)
	}
	node, err := resolve(schema, path)
	if err != nil {
		return err
	}
	if old, ok := node[keyword]; ok && fmt.Sprint(old) != value {
		return fmt.Errorf("bound %q: %s already has %s %v", bound, path, keyword, old)
	}
	node[keyword] = n
	return nil
}

// resolve finds the schema at path (see the package comment for its form).
func resolve(schema map[string]any, path string) (map[string]any, error) {
	node := schema
	for _, segment := range strings.Split(path, ".") {
		name, into := segment, ""
		if strings.HasSuffix(segment, "[]") || strings.HasSuffix(segment, "{}") {
			name, into = segment[:len(segment)-2], segment[len(segment)-2:]
		}
		if name == "" || strings.ContainsAny(name, "[]{}") {
			return nil, fmt.Errorf("path %s: bad segment %q", path, segment)
		}
		node, _ = lookup(node, "properties", name).(map[string]any)
		switch into {
		case "[]":
			node, _ = lookup(node, "items").(map[string]any)
		case "{}":
			node, _ = lookup(node, "additionalProperties").(map[string]any)
		}
		if node == nil {
			return nil, fmt.Errorf("no schema at %s", path)
		}
	}
	return node, nil
}

func lookup(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = obj[k]
	}
	return cur
}

// stripDescriptions removes the description of a schema and of every
// schema below it. It follows only the keywords whose values are schemas,
// so a default or an enum value is never changed, and a property named
// "description" (a key of "properties") is kept.
func stripDescriptions(node any) {
	schema, ok := node.(map[string]any)
	if !ok {
		return
	}
	delete(schema, "description")
	if props, ok := schema["properties"].(map[string]any); ok {
		for _, child := range props {
			stripDescriptions(child)
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not"} {
		stripDescriptions(schema[key])
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := schema[key].([]any)
		for _, child := range list {
			stripDescriptions(child)
		}
	}
}
