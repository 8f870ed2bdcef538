package controller

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func setAt(rv string, gen int64, ready int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "u1", ResourceVersion: rv, Generation: gen},
		Status:     appsv1.StatefulSetStatus{ReadyReplicas: ready},
	}
}

func TestStatusWritesStartFromTheFreshestCopy(t *testing.T) {
	cases := []struct {
		name   string
		last   *appsv1.StatefulSet
		cached *appsv1.StatefulSet
		want   string // resourceVersion of the base used
	}{
		{"our last write is newer than the cache", setAt("20", 1, 3), setAt("10", 1, 2), "20"},
		{"the cache caught up", setAt("20", 1, 3), setAt("25", 1, 3), "25"},
		{"the spec changed since our write", setAt("20", 1, 3), setAt("10", 2, 2), "10"},
		{"the set was replaced", func() *appsv1.StatefulSet { s := setAt("20", 1, 3); s.UID = "u0"; return s }(), setAt("10", 1, 2), "10"},
		{"resource versions that are not numbers", setAt("b", 1, 3), setAt("a", 1, 2), "a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newAPIStatus(nil, &memories{})
			s.remember(c.last)
			if got := s.freshest(c.cached).ResourceVersion; got != c.want {
				t.Errorf("base at resourceVersion %s, want %s", got, c.want)
			}
		})
	}
	t.Run("a forgotten set falls back to the cache", func(t *testing.T) {
		ms := &memories{}
		s := newAPIStatus(nil, ms)
		s.remember(setAt("20", 1, 3))
		ms.forget("ns/web")
		if got := s.freshest(setAt("10", 1, 2)).ResourceVersion; got != "10" {
			t.Errorf("base at %s, want 10", got)
		}
	})
	t.Run("a copy the cache caught up with is dropped, one still ahead is kept", func(t *testing.T) {
		s := newAPIStatus(nil, &memories{})
		held := func() *appsv1.StatefulSet {
			var got *appsv1.StatefulSet
			s.stored.read("ns/web", func(st **appsv1.StatefulSet) { got = *st })
			return got
		}
		last := setAt("20", 1, 3)
		last.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "ordinal", Operation: metav1.ManagedFieldsOperationUpdate}}
		s.remember(last)
		if got := held(); got == nil || got.ManagedFields != nil {
			t.Fatalf("held %v, want the write without its managed fields", got)
		}
		s.freshest(setAt("10", 2, 2)) // a newer spec, but the cache is still behind the write
		if held() == nil {
			t.Fatal("dropped a copy the cache has not caught up with")
		}
		s.freshest(setAt("20", 1, 3))
		if got := held(); got != nil {
			t.Errorf("still holds the copy at %s after the cache reached it", got.ResourceVersion)
		}
	})
}

// A condition the plan changes is a status write of its own, as upstream's
// from 1.37; the set's other conditions are kept as stored, whoever wrote
// them, even when they changed after the plan was made.
func TestAConditionChangeAloneIsAStatusWrite(t *testing.T) {
	ctx := context.Background()
	theirs := appsv1.StatefulSetCondition{Type: "ExternalCheck", Status: corev1.ConditionTrue, Reason: "Tested"}
	set := setAt("10", 1, 2)
	set.Status.Conditions = []appsv1.StatefulSetCondition{theirs}
	set.Status.CollisionCount = new(int32)
	client := fake.NewClientset(set)
	s := newAPIStatus(client, &memories{})
	want := set.Status
	want.Conditions = []appsv1.StatefulSetCondition{theirs}
	if got, err := s.Write(ctx, set, want); err != nil || got != set {
		t.Fatalf("an unchanged status was written (%v)", err)
	}
	progressing := appsv1.StatefulSetCondition{Type: appsv1.StatefulSetProgressing, Status: corev1.ConditionTrue, Reason: "RecreateInProgress", Message: "Deleting old revision pods"}
	want.Conditions = []appsv1.StatefulSetCondition{theirs, progressing}
	if _, err := s.Write(ctx, set, want); err != nil {
		t.Fatal(err)
	}
	stored, err := client.AppsV1().StatefulSets("ns").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]appsv1.StatefulSetCondition{theirs, progressing}, stored.Status.Conditions); diff != "" {
		t.Errorf("stored conditions (-want +got):\n%s", diff)
	}
	if !statusEqual(stored.Status, want) || statusEqual(set.Status, want) {
		t.Error("statusEqual does not compare conditions")
	}
}
