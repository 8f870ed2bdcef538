package controller

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

func TestAConfigChangeNamesItsRevisionBeforeAPodMoves(t *testing.T) {
	set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	observed := appsv1.StatefulSetStatus{ObservedGeneration: 3, UpdateRevision: "web-1"}
	steps := []planner.Step{{}}
	cases := []struct {
		name   string
		config *configResolution
		stored appsv1.StatefulSetStatus
		update string
		held   bool
	}{
		{"the data changed: the status goes first", &configResolution{}, observed, "web-2", true},
		{"the same update revision acts at once", &configResolution{}, observed, "web-1", false},
		{"a new generation tells watchers itself", &configResolution{}, appsv1.StatefulSetStatus{ObservedGeneration: 2, UpdateRevision: "web-1"}, "web-2", false},
		{"a set without config revisions acts at once", nil, observed, "web-2", false},
		{"a first sync acts at once", &configResolution{}, appsv1.StatefulSetStatus{ObservedGeneration: 3}, "web-2", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := planner.Plan{Steps: steps, Status: appsv1.StatefulSetStatus{UpdateRevision: c.update}}
			held := announceFirst(&target{config: c.config}, set, c.stored, &plan)
			if held != c.held || (len(plan.Steps) == 0) != c.held {
				t.Errorf("held %v with %d steps left, want held %v", held, len(plan.Steps), c.held)
			}
		})
	}
}

func TestASetReadsAtMostTheBoundedNumberOfObjects(t *testing.T) {
	refs := func(maps, secrets int) []configrev.Ref {
		var out []configrev.Ref
		for i := range maps {
			out = append(out, configrev.Ref{Kind: configrev.ConfigMap, Name: fmt.Sprint("cm-", i)})
		}
		for i := range secrets {
			out = append(out, configrev.Ref{Kind: configrev.Secret, Name: fmt.Sprint("s-", i)})
		}
		return out
	}
	if h := tooMany(refs(v1alpha1.MaxConfigMaps, v1alpha1.MaxConfigSecrets)); h != nil {
		t.Errorf("the bound itself is held: %+v", h)
	}
	for _, r := range [][]configrev.Ref{refs(v1alpha1.MaxConfigMaps+1, 0), refs(0, v1alpha1.MaxConfigSecrets+1)} {
		if h := tooMany(r); h == nil || h.Reason != "TooManyConfigObjects" {
			t.Errorf("%d objects: hold %+v, want TooManyConfigObjects", len(r), h)
		}
	}
}

func TestConfigUsersWakeTheSetsThatReadAnObject(t *testing.T) {
	var u configUsers
	u.set("ns/a", []string{"ns/app", "ns/shared"})
	u.set("ns/b", []string{"ns/shared"})
	if got := u.of("ns/shared"); len(got) != 2 {
		t.Errorf("ns/shared wakes %v, want both sets", got)
	}
	u.set("ns/a", []string{"ns/other"})
	if got := u.of("ns/app"); len(got) != 0 {
		t.Errorf("ns/app still wakes %v after the set stopped reading it", got)
	}
	u.set("ns/b", nil)
	if got := u.of("ns/shared"); len(got) != 0 || len(u.byObject) != 1 {
		t.Errorf("a forgotten set is still woken (%v), objects kept %v", got, u.byObject)
	}
}
