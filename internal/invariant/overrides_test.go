package invariant

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
)

// revWith is revision name holding the app container at image nginx:0.8
// and overrides (JSON), as the controller writes it.
func revWith(name, overrides string) *appsv1.ControllerRevision {
	r := mkRev(name)
	data := `{"spec":{"template":{"$patch":"replace","spec":{"containers":[{"image":"nginx:0.8","name":"app"}]}}`
	if overrides != "" {
		data += `,"overrides":` + overrides
	}
	r.Data = runtime.RawExtension{Raw: []byte(data + `}}`)}
	return r
}

// bigCPU overrides ordinal 0 with the given cpu request.
func bigCPU(cpu string) string {
	b, _ := json.Marshal([]map[string]any{{"name": "big", "ordinals": []any{0}, "template": map[string]any{"spec": map[string]any{
		"containers": []map[string]any{{"name": "app", "resources": map[string]any{"requests": map[string]any{"cpu": cpu}}}}}}}})
	return string(b)
}

// runs gives the pod the app container with image nginx:0.8 and a cpu
// request (none for "").
func runs(cpu string) podOpt {
	return func(p *corev1.Pod) {
		c := corev1.Container{Name: "app", Image: "nginx:0.8"}
		if cpu != "" {
			c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		}
		p.Spec.Containers = []corev1.Container{c}
	}
}

// overridden is two Ready pods of a set whose revision web-r1 gives
// ordinal 0 cpu 200m.
func overridden(opts ...extOpt) *history {
	h := &history{}
	h.add(0, added, revWith("web-r1", bigCPU("200m")))
	h.add(0.05, added, mkExt(2, opts...))
	h.add(0.1, added, mkPod(0, "a", ready, runs("200m")))
	return h.add(1.1, added, mkPod(1, "a", ready, runs("")))
}

func TestOverrideRules(t *testing.T) {
	for _, tc := range []struct {
		name    string
		history func() *history
		want    []Rule
	}{{
		name:    "pods made from their ordinals' effective templates",
		history: func() *history { return overridden() },
	}, {
		name: "a pod made without its override breaks override-template",
		history: func() *history {
			h := &history{}
			h.add(0, added, revWith("web-r1", bigCPU("200m")))
			h.add(0.05, added, mkExt(2))
			return h.add(0.1, added, mkPod(0, "a", ready, runs("")))
		},
		want: []Rule{RuleOverrideTemplate},
	}, {
		name: "a pod moved by its label to a revision whose template for it is the same is fine",
		history: func() *history {
			h := overridden()
			h.add(5, added, revWith("web-r2", bigCPU("300m")))
			h.add(5.1, modified, mkExt(2, gen(2), extRevisions("web-r1", "web-r2")))
			return h.add(6, modified, mkPod(1, "a", ready, runs(""), rev("web-r2")))
		},
	}, {
		name: "a pod moved to a revision whose template for it differs breaks override-template",
		history: func() *history {
			h := overridden()
			h.add(5, added, revWith("web-r2", bigCPU("300m")))
			h.add(5.1, modified, mkExt(2, gen(2), extRevisions("web-r1", "web-r2")))
			return h.add(6, modified, mkPod(0, "a", ready, runs("200m"), rev("web-r2")))
		},
		want: []Rule{RuleOverrideTemplate},
	}, {
		name: "deleting the overridden pod whose template changed is a rolling update",
		history: func() *history {
			h := overridden()
			h.add(5, added, revWith("web-r2", bigCPU("300m")))
			h.add(5.1, modified, mkExt(2, gen(2), extRevisions("web-r1", "web-r2")))
			return h.add(20, modified, mkPod(0, "a", ready, runs("200m"), terminating))
		},
	}, {
		name: "deleting a pod whose effective template did not change breaks override-unchanged-delete",
		history: func() *history {
			h := overridden()
			h.add(5, added, revWith("web-r2", bigCPU("300m")))
			h.add(5.1, modified, mkExt(2, gen(2), extRevisions("web-r1", "web-r2")))
			return h.add(20, modified, mkPod(1, "a", ready, runs(""), terminating))
		},
		want: []Rule{RuleOverrideUnchangedDelete},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []Rule
			for _, v := range tc.history().check() {
				got = append(got, v.Rule)
				t.Log(v)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rules fired (-want +got):\n%s", diff)
			}
		})
	}
}
