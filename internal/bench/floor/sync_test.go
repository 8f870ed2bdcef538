package floor

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ready(name string) slot {
	return slot{pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}, ready: true, current: true}
}

func old(s slot) slot         { s.current = false; return s }
func unready(s slot) slot     { s.ready = false; return s }
func terminating(s slot) slot { s.terminating = true; return s }

func names(p plan) (creates []int, deletes []string) {
	for _, d := range p.deletes {
		deletes = append(deletes, d.Name)
	}
	return p.creates, deletes
}

func TestPlans(t *testing.T) {
	cases := []struct {
		name        string
		ordered     bool
		slots       []slot
		replicas    int
		maxUnavail  int
		wantCreates []int
		wantDeletes []string
	}{
		{"parallel creates every missing replica at once", false, make([]slot, 3), 3, 1, []int{0, 1, 2}, nil},
		{"parallel deletes every surplus replica at once", false, []slot{ready("w-0"), ready("w-1"), ready("w-2")}, 1, 1, nil, []string{"w-1", "w-2"}},
		{"parallel replaces old pods highest first within maxUnavailable", false,
			[]slot{old(ready("w-0")), old(ready("w-1")), old(ready("w-2")), old(ready("w-3"))}, 4, 2, nil, []string{"w-3", "w-2"}},
		{"parallel counts an unready pod against the budget", false,
			[]slot{old(ready("w-0")), old(ready("w-1")), unready(ready("w-2"))}, 3, 1, nil, nil},
		{"parallel replaces an unready old pod without budget", false,
			[]slot{old(ready("w-0")), old(unready(ready("w-1")))}, 2, 1, nil, []string{"w-1"}},
		{"ordered creates only the first missing replica", true, []slot{ready("w-0"), {}, {}}, 3, 1, []int{1}, nil},
		{"ordered waits for an unready predecessor", true, []slot{unready(ready("w-0")), {}}, 2, 1, nil, nil},
		{"ordered removes the highest surplus replica first", true, []slot{ready("w-0"), ready("w-1"), ready("w-2")}, 1, 1, nil, []string{"w-2"}},
		{"ordered replaces the highest old pod, one at a time", true, []slot{old(ready("w-0")), old(ready("w-1"))}, 2, 1, nil, []string{"w-1"}},
		{"ordered waits while a pod terminates", true, []slot{old(ready("w-0")), terminating(ready("w-1"))}, 2, 1, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p plan
			if c.ordered {
				p = planOrdered(c.slots, c.replicas)
			} else {
				p = planParallel(c.slots, c.replicas, c.maxUnavail)
			}
			creates, deletes := names(p)
			if diff := cmp.Diff(c.wantCreates, creates); diff != "" {
				t.Errorf("creates (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.wantDeletes, deletes); diff != "" {
				t.Errorf("deletes (-want +got):\n%s", diff)
			}
		})
	}
}
