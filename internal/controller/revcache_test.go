package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// revisionsOf is a set at template app:2 with rev1 (app:1) and rev2, each
// with a UID and resourceVersion.
func revisionsOf(t *testing.T) (*appsv1.StatefulSet, []*appsv1.ControllerRevision) {
	t.Helper()
	old := testgen.StatefulSet("web", testgen.Image("app:1"))
	set := testgen.StatefulSet("web", testgen.Image("app:2"))
	set.UID, set.Generation = "set-uid", 4
	r1, r2 := testgen.RevisionOf(old, 1), testgen.RevisionOf(set, 2)
	r1.UID, r1.ResourceVersion, r2.UID, r2.ResourceVersion = "r1", "3", "r2", "7"
	set.Status.CurrentRevision = r1.Name
	return set, []*appsv1.ControllerRevision{r1, r2}
}

func TestTheRevisionCacheGivesWhatTheWorkWould(t *testing.T) {
	set, revs := revisionsOf(t)
	rc := &revCache{}
	want, err := revision.ResolveWith(set, revs, revision.Options{})
	if err != nil || want.Write != revision.WriteNone {
		t.Fatalf("resolution %v, %v; want one without a write", want.Write, err)
	}
	for range 2 {
		got, err := rc.resolve(set, revs, revision.Options{}, "")
		if err != nil || got.Current != want.Current || got.Update != want.Update || got.Write != want.Write {
			t.Fatalf("cached resolution %+v, %v; want %+v", got, err, want)
		}
	}
	// A revision changed (a bump): the cache is not used.
	bumped := revs[0].DeepCopy()
	bumped.ResourceVersion, bumped.Revision = "11", 3
	got, err := rc.resolve(set, []*appsv1.ControllerRevision{bumped, revs[1]}, revision.Options{}, "")
	if err != nil || got.Current != bumped {
		t.Errorf("after a bump the current revision is %v, want the bumped one", got.Current)
	}
	// A new template needs a write: nothing is kept, and the cache still
	// answers for the revisions as they were.
	set3 := set.DeepCopy()
	set3.Spec.Template.Spec.Containers[0].Image, set3.Generation = "app:3", 5
	if got, _ := rc.resolve(set3, revs, revision.Options{}, ""); got.Write != revision.WriteCreate || rc.resolution != nil {
		t.Errorf("a new template: write %v, kept %v; want a create, nothing kept", got.Write, rc.resolution)
	}

	for _, rev := range revs {
		want, err := revision.Apply(set, rev)
		if err != nil {
			t.Fatal(err)
		}
		first, _ := rc.apply(set, rev)
		again, _ := rc.apply(set, rev)
		if diff := cmp.Diff(want, first); diff != "" || first != again {
			t.Errorf("apply %s (-want +got):\n%s (same object the second time: %v)", rev.Name, diff, first == again)
		}
	}
	rc.synced()
	kept, _ := rc.apply(set, revs[1])
	written := set.DeepCopy()
	written.ResourceVersion, written.Status.ReadyReplicas = "13", 1
	if again, _ := rc.apply(written, revs[1]); again != kept {
		t.Error("a status write (new resourceVersion, same generation) missed the cache")
	}
	newer := set.DeepCopy()
	newer.Generation = 6
	if other, _ := rc.apply(newer, revs[1]); other == kept {
		t.Error("a newer generation got the older one's result")
	}
	rc.synced()
	rc.synced()
	if len(rc.applied) != 0 {
		t.Errorf("%d applied sets kept after a sync that used none", len(rc.applied))
	}
}
