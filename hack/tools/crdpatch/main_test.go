package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

const crdYAML = `
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: the kind
        properties:
          spec:
            description: the spec
            properties:
              template:
                description: kept, the chosen property's own
                properties:
                  description:
                    description: dropped, a property named description
                    type: string
                  ports:
                    description: dropped
                    items:
                      description: dropped
                      properties:
                        protocol:
                          default: TCP
                          description: dropped
                          type: string
                    type: array
                  labels:
                    additionalProperties:
                      description: dropped
                      type: string
                    type: object
                  meta:
                    default:
                      description: kept, a default value
                    type: object
                type: object
              replicas:
                description: kept, outside the chosen path
                type: integer
`

const wantYAML = `
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: the kind
        properties:
          spec:
            description: the spec
            properties:
              template:
                description: kept, the chosen property's own
                properties:
                  description:
                    type: string
                  ports:
                    items:
                      properties:
                        protocol:
                          default: TCP
                          type: string
                    type: array
                  labels:
                    additionalProperties:
                      type: string
                    type: object
                  meta:
                    default:
                      description: kept, a default value
                    type: object
                type: object
              replicas:
                description: kept, outside the chosen path
                type: integer
`

func TestTrimDropsDescriptionsBelowThePathOnly(t *testing.T) {
	crd, want := parse(t, crdYAML), parse(t, wantYAML)
	if err := (patch{trims: list{"spec.template"}}).apply(crd); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, crd); diff != "" {
		t.Errorf("trimmed CRD (-want +got):\n%s", diff)
	}
}

func TestBoundSetsAKeywordInsideItemsAndMapValues(t *testing.T) {
	crd := parse(t, crdYAML)
	p := patch{bounds: list{"spec.template.ports[].protocol:maxLength=8", "spec.template.labels{}:maxLength=63", "spec.template.ports:maxItems=4"}}
	if err := p.apply(crd); err != nil {
		t.Fatal(err)
	}
	template := lookup(crd, "spec", "versions").([]any)[0].(map[string]any)
	props := lookup(template, "schema", "openAPIV3Schema", "properties", "spec", "properties", "template", "properties").(map[string]any)
	got := []any{
		lookup(props, "ports", "items", "properties", "protocol", "maxLength"),
		lookup(props, "labels", "additionalProperties", "maxLength"),
		lookup(props, "ports", "maxItems"),
	}
	if diff := cmp.Diff([]any{int64(8), int64(63), int64(4)}, got); diff != "" {
		t.Errorf("bounds (-want +got):\n%s", diff)
	}
}

func TestBadPatchesAreRefusedWithTheReason(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    patch
		want string
	}{
		{"a misspelt trim path", patch{trims: list{"spec.tempalte"}}, "version v1: no schema at spec.tempalte"},
		{"a misspelt bound path", patch{bounds: list{"spec.replica:maxLength=1"}}, "version v1: no schema at spec.replica"},
		{"a keyword that is not a bound", patch{bounds: list{"spec.replicas:minimum=1"}},
			`version v1: bound "spec.replicas:minimum=1": want PATH:KEYWORD=N with KEYWORD maxLength, maxItems or maxProperties`},
		{"a negative bound", patch{bounds: list{"spec.replicas:maxLength=-1"}}, `version v1: bound "spec.replicas:maxLength=-1": "-1" is not a non-negative integer`},
		{"a bound that changes the generator's", patch{bounds: list{"spec.template.ports[].protocol:maxLength=8", "spec.template.ports[].protocol:maxLength=9"}},
			`version v1: bound "spec.template.ports[].protocol:maxLength=9": spec.template.ports[].protocol already has maxLength 8`},
		{"a bad segment", patch{bounds: list{"spec.template.ports[]x:maxItems=1"}}, `version v1: path spec.template.ports[]x: bad segment "ports[]x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.apply(parse(t, crdYAML))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got error %v, want %q", err, tc.want)
			}
		})
	}
}

func parse(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
