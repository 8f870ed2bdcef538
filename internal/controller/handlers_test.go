package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// queued drains the controller's queue and returns its keys.
func queued(c *Controller) map[string]bool {
	out := map[string]bool{}
	for c.queue.Len() > 0 {
		key, _ := c.queue.Get()
		out[key] = true
		c.queue.Done(key)
		c.queue.Forget(key)
	}
	return out
}

func TestEventHandlersWakeTheSetAnObjectBelongsTo(t *testing.T) {
	web := testgen.StatefulSet("web", testgen.ClaimTemplates("data"))
	dataWeb := testgen.StatefulSet("data-web") // a set whose name looks like a claim prefix
	other := testgen.StatefulSet("other")
	c, _ := newTestController(t, web, dataWeb, other)
	webKey := testgen.Namespace + "/web"
	queued(c) // the sets' own add events

	cases := []struct {
		name string
		fire func()
		want map[string]bool
	}{
		{"an owned pod wakes its owner", func() { c.podChanged(recordOf(testgen.Pod(web, 0))) }, map[string]bool{webKey: true}},
		{"an orphan wakes every set whose selector matches it",
			func() { c.podChanged(recordOf(orphan(testgen.Pod(web, 0)))) }, map[string]bool{webKey: true}},
		{"a pod owned by a set of another UID wakes nobody",
			func() {
				p := testgen.Pod(web, 0)
				p.OwnerReferences[0].UID = "someone-else"
				c.podChanged(recordOf(p))
			}, map[string]bool{}},
		{"a foreign pod that held one of a set's names wakes that set when deleted",
			func() {
				p := testgen.Pod(other, 0, testgen.Named("web-3"))
				p.OwnerReferences[0].APIVersion, p.OwnerReferences[0].Kind = "apps/v1", "ReplicaSet"
				c.podDeleted(recordOf(p))
			}, map[string]bool{webKey: true}},
		{"a deleted pod of another set wakes only through its owner",
			func() { c.podDeleted(recordOf(testgen.Pod(other, 0, testgen.Named("web-3")))) }, map[string]bool{}},
		{"a claim wakes the set whose template and name it carries",
			func() { c.claimChanged(claimRecordOf(testgen.Claim(web, "data", 2))) }, map[string]bool{webKey: true}},
		{"a claim of no template wakes nobody",
			func() { c.claimChanged(claimRecordOf(testgen.Claim(other, "data", 0))) }, map[string]bool{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.fire()
			got := queued(c)
			if len(got) != len(tc.want) {
				t.Fatalf("queued %v, want %v", got, tc.want)
			}
			for k := range tc.want {
				if !got[k] {
					t.Errorf("queued %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func recordOf(p *corev1.Pod) *podRecord {
	r, err := stripForCache(p)
	if err != nil {
		panic(err)
	}
	return r.(*podRecord)
}

func claimRecordOf(claim *corev1.PersistentVolumeClaim) *claimRecord {
	r, err := stripForCache(claim)
	if err != nil {
		panic(err)
	}
	return r.(*claimRecord)
}
