package revision_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// numbered returns a copy of rev with another .revision.
func numbered(rev *appsv1.ControllerRevision, n int64) *appsv1.ControllerRevision {
	c := rev.DeepCopy()
	c.Revision = n
	return c
}

func withCurrent(name string) testgen.SetOption {
	return testgen.Status(func(s *appsv1.StatefulSetStatus) { s.CurrentRevision = name })
}

func TestResolve(t *testing.T) {
	v1 := testgen.StatefulSet("web", testgen.Image("app:1"))
	v2 := testgen.StatefulSet("web", testgen.Image("app:2"))
	r1, r2 := testgen.RevisionOf(v1, 1), testgen.RevisionOf(v2, 2)
	type want struct {
		current, update string
		number          int64
		write           revision.Write
	}
	tests := []struct {
		name      string
		set       *appsv1.StatefulSet
		revisions []*appsv1.ControllerRevision
		want      want
	}{{
		name: "the first sync creates revision 1, which is also current",
		set:  v1,
		want: want{r1.Name, r1.Name, 1, revision.WriteCreate},
	}, {
		name:      "an unchanged template reuses the newest revision without a write",
		set:       testgen.StatefulSet("web", testgen.Image("app:1"), withCurrent(r1.Name)),
		revisions: []*appsv1.ControllerRevision{r1},
		want:      want{r1.Name, r1.Name, 1, revision.WriteNone},
	}, {
		name:      "a template change creates the next revision and keeps current",
		set:       testgen.StatefulSet("web", testgen.Image("app:2"), withCurrent(r1.Name)),
		revisions: []*appsv1.ControllerRevision{r1},
		want:      want{r1.Name, r2.Name, 2, revision.WriteCreate},
	}, {
		name:      "reverting to an older template bumps that revision past the newest",
		set:       testgen.StatefulSet("web", testgen.Image("app:1"), withCurrent(r2.Name)),
		revisions: []*appsv1.ControllerRevision{r2, r1},
		want:      want{r2.Name, r1.Name, 3, revision.WriteBump},
	}, {
		name:      "a newest revision written by 1.33 is reused, not re-created",
		set:       testgen.StatefulSet("web", testgen.Image("app:1"), withCurrent(r1.Name)),
		revisions: []*appsv1.ControllerRevision{as133(r1)},
		want:      want{r1.Name, r1.Name, 1, revision.WriteNone},
	}, {
		name:      "an older revision written by 1.33 is not matched semantically, as upstream",
		set:       testgen.StatefulSet("web", testgen.Image("app:1"), withCurrent(r2.Name)),
		revisions: []*appsv1.ControllerRevision{as133(r1), r2},
		want:      want{r2.Name, testgen.RevisionOf(v1, 3).Name, 3, revision.WriteCreate},
	}, {
		name:      "a current revision missing from history falls back to the update revision",
		set:       testgen.StatefulSet("web", testgen.Image("app:2"), withCurrent("web-gone")),
		revisions: []*appsv1.ControllerRevision{r1},
		want:      want{r2.Name, r2.Name, 2, revision.WriteCreate},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := revision.Resolve(tt.set, tt.revisions)
			if err != nil {
				t.Fatal(err)
			}
			got := want{res.Current.Name, res.Update.Name, res.Update.Revision, res.Write}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("Resolve() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveCollisions(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Status(func(s *appsv1.StatefulSetStatus) { s.CollisionCount = ptr.To[int32](2) }))
	res, err := revision.Resolve(set, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the candidate is named with the collision count from status", func(t *testing.T) {
		want := revision.Name(set.Name, revision.Hash(res.Update.Data.Raw, ptr.To[int32](2)))
		if res.Update.Name != want || res.CollisionCount != 2 {
			t.Errorf("candidate %s (count %d), want %s (count 2)", res.Update.Name, res.CollisionCount, want)
		}
	})
	t.Run("after a collision the stored revision replaces both current and update", func(t *testing.T) {
		retry := revision.ForCollision(set.Name, res.Update, res.CollisionCount+1)
		stored := res.WithUpdate(retry)
		if stored.Update != retry || stored.Current != retry || retry.Name == res.Update.Name {
			t.Errorf("WithUpdate() = current %s update %s, want both %s", stored.Current.Name, stored.Update.Name, retry.Name)
		}
	})
	t.Run("a bump leaves a distinct current revision alone", func(t *testing.T) {
		current := testgen.RevisionOf(testgen.StatefulSet("web", testgen.Image("app:9")), 1)
		r := revision.Resolution{Current: current, Update: res.Update}.WithUpdate(retryOf(t, set))
		if r.Current != current {
			t.Errorf("WithUpdate() replaced current %s with %s", current.Name, r.Current.Name)
		}
	})
}

func retryOf(t *testing.T, set *appsv1.StatefulSet) *appsv1.ControllerRevision {
	t.Helper()
	first, err := revision.New(set, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return revision.ForCollision(set.Name, first, 3)
}

func TestSort(t *testing.T) {
	at := func(name string, n int64, sec int) *appsv1.ControllerRevision {
		return &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(testgen.Epoch.Add(time.Duration(sec) * time.Second))},
			Revision:   n,
		}
	}
	revs := []*appsv1.ControllerRevision{at("d", 3, 0), at("c", 2, 5), at("b", 2, 5), at("a", 2, 9), at("e", 1, 9)}
	revision.Sort(revs)
	var got []string
	for _, r := range revs {
		got = append(got, r.Name)
	}
	if diff := cmp.Diff([]string{"e", "b", "c", "a", "d"}, got); diff != "" {
		t.Errorf("Sort() by revision, then creation time, then name (-want +got):\n%s", diff)
	}
}

func TestToTruncate(t *testing.T) {
	var revs []*appsv1.ControllerRevision
	for i := 1; i <= 6; i++ {
		revs = append(revs, testgen.RevisionOf(testgen.StatefulSet("web", testgen.Image(fmt.Sprintf("app:%d", i))), int64(i)))
	}
	set := testgen.StatefulSet("web")
	podAt := func(rev *appsv1.ControllerRevision) *corev1.Pod { return testgen.Pod(set, 0, testgen.At(rev)) }
	tests := []struct {
		name  string
		limit *int32
		pods  []*corev1.Pod
		want  []int64
	}{
		{"history within the limit is kept", ptr.To[int32](4), nil, nil},
		{"the oldest non-live revisions beyond the limit go first", ptr.To[int32](2), nil, []int64{1, 2}},
		{"a revision a pod still runs is live and kept", ptr.To[int32](2), []*corev1.Pod{podAt(revs[0])}, []int64{2}},
		{"limit zero deletes every non-live revision and no live one", ptr.To[int32](0), []*corev1.Pod{podAt(revs[2])}, []int64{1, 2, 4}},
		{"a negative limit keeps everything", ptr.To[int32](-1), nil, nil},
		{"a nil limit means the default of 10", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set.Spec.RevisionHistoryLimit = tt.limit
			// revisions 5 and 6 are current and update; pass them unsorted.
			shuffled := []*appsv1.ControllerRevision{revs[5], revs[2], revs[0], revs[4], revs[1], revs[3]}
			var got []int64
			for _, r := range revision.ToTruncate(set, shuffled, tt.pods, revs[4], revs[5]) {
				got = append(got, r.Revision)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ToTruncate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzPatchAndHash(f *testing.F) {
	f.Add("web", "app:1", "app", "value", []byte(upstreamRaw133), int32(0))
	f.Add("", "", "", "", []byte(`{"spec":{"template":null}}`), int32(-5))
	f.Add("a-very-long-name", "<&>", "k/v", "\u2028", []byte(`not json`), int32(1<<30))
	f.Fuzz(func(t *testing.T, name, image, key, value string, raw []byte, collisions int32) {
		set := testgen.StatefulSet(name, testgen.Image(image), testgen.TemplateAnnotation(key, value))
		data, err := revision.Patch(set)
		if err != nil {
			t.Fatalf("Patch() of a typed set failed: %v", err)
		}
		if a, b := revision.Hash(raw, &collisions), revision.Hash(raw, &collisions); a != b || a == "" {
			t.Fatalf("Hash() is not deterministic: %q, %q", a, b)
		}
		rev, err := revision.New(set, 1, &collisions)
		if err != nil {
			t.Fatal(err)
		}
		if !revision.SemanticallyEqual(set, rev) {
			t.Fatalf("a set is not semantically equal to its own revision: %s", data)
		}
		rev.Data.Raw = raw
		_, _ = revision.Apply(set, rev) // must not panic on arbitrary data
		_ = revision.SemanticallyEqual(set, rev)
	})
}

// A revision whose template lacks defaults the API server has since added
// (written by an older version, or by a tool that did not default it) is
// the same template: upstream defaults the restored template before it
// compares, and nothing rolls.
func TestResolveDefaultsARestoredTemplate(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Image("app:1"))
	bare := set.DeepCopy()
	spec := &bare.Spec.Template.Spec
	spec.DNSPolicy, spec.RestartPolicy, spec.SchedulerName = "", "", ""
	spec.TerminationGracePeriodSeconds, spec.SecurityContext = nil, nil
	for i := range spec.Containers {
		c := &spec.Containers[i]
		c.ImagePullPolicy, c.TerminationMessagePath, c.TerminationMessagePolicy = "", "", ""
	}
	old, err := revision.New(bare, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	live, err := revision.New(set, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(old.Data.Raw, live.Data.Raw) {
		t.Fatal("the scenario needs a revision whose bytes differ from the live set's")
	}
	res, err := revision.Resolve(set, []*appsv1.ControllerRevision{old})
	if err != nil {
		t.Fatal(err)
	}
	if res.Update.Name != old.Name || res.Write != revision.WriteNone {
		t.Errorf("Resolve() = update %s, write %s; want the undefaulted revision %s reused with no write", res.Update.Name, res.Write, old.Name)
	}
	t.Run("a real change is still a new revision", func(t *testing.T) {
		changed := testgen.StatefulSet("web", testgen.Image("app:2"))
		res, err := revision.Resolve(changed, []*appsv1.ControllerRevision{old})
		if err != nil {
			t.Fatal(err)
		}
		if res.Write != revision.WriteCreate {
			t.Errorf("Resolve() write %s, want create", res.Write)
		}
	})
}
