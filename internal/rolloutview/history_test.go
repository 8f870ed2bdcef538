package rolloutview

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/golden"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestRenderHistory(t *testing.T) {
	r := newRollout()
	r.oldRev.CreationTimestamp = metav1.NewTime(testgen.Epoch)
	r.newRev.CreationTimestamp = metav1.NewTime(testgen.Epoch.Add(50 * time.Minute))
	r.newRev.Annotations = map[string]string{ChangeCauseAnnotation: "image app:2"}
	now := testgen.Epoch.Add(time.Hour)

	t.Run("revisions are listed oldest first with their pods and roles", func(t *testing.T) {
		var b strings.Builder
		RenderHistory(&b, "statefulset.apps/web", NewHistory(r.set, revs(r.newRev, r.oldRev), r.pods(), ""), now)
		golden.Check(t, "history.txt", b.String())
	})
	t.Run("a revision the failure policy holds is marked, beside the one the set runs", func(t *testing.T) {
		set := r.set.DeepCopy()
		set.Status.CurrentRevision, set.Status.UpdateRevision = r.oldRev.Name, r.oldRev.Name
		pods := r.pods(testgen.At(r.oldRev))
		var b strings.Builder
		RenderHistory(&b, "statefulset.apps.ordinal.dev/web", NewHistory(set, revs(r.newRev, r.oldRev), pods, r.newRev.Name), now)
		golden.Check(t, "history-held.txt", b.String())
	})
	t.Run("an empty history says so as kubectl does", func(t *testing.T) {
		var b strings.Builder
		RenderHistory(&b, "statefulset.apps/web", nil, now)
		golden.Check(t, "history-empty.txt", b.String())
	})
}

func TestOrdinals(t *testing.T) {
	tests := []struct {
		name string
		in   []int32
		want string
	}{
		{"no ordinals is empty", nil, ""},
		{"a run is a range", []int32{0, 1, 2}, "0-2"},
		{"gaps split ranges", []int32{0, 2, 3, 7}, "0,2-3,7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ordinals(tt.in); got != tt.want {
				t.Errorf("Ordinals(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
