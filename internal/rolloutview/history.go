package rolloutview

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// ChangeCauseAnnotation is the annotation kubectl reads as CHANGE-CAUSE;
// the controller copies it from the set onto each revision.
const ChangeCauseAnnotation = "kubernetes.io/change-cause"

// Entry is one revision in `history` and `history -o json|yaml`.
type Entry struct {
	Revision    int64     `json:"revision"`
	Name        string    `json:"name"`
	ChangeCause string    `json:"changeCause,omitempty"`
	Created     time.Time `json:"created"`
	// Ordinals are the ordinals whose pods run this revision.
	Ordinals []int32 `json:"ordinals"`
	Current  bool    `json:"current,omitempty"`
	Update   bool    `json:"update,omitempty"`
	// Held marks the revision whose failed rollout an extended set's
	// failure policy holds (status.hold): the spec names it, and the set
	// does not roll to it.
	Held bool `json:"held,omitempty"`
}

// NewHistory lists revisions oldest first, with the pods running each;
// held names the revision a hold keeps the set from ("" for none).
func NewHistory(set *appsv1.StatefulSet, revisions []*appsv1.ControllerRevision, pods []*corev1.Pod, held string) []Entry {
	running := map[string][]int32{}
	for _, p := range pods {
		if ord, ok := planner.ParseOrdinal(set.Name, p.Name); ok {
			rev := p.Labels[appsv1.StatefulSetRevisionLabel]
			running[rev] = append(running[rev], ord)
		}
	}
	out := make([]Entry, 0, len(revisions))
	for _, r := range revisions {
		ords := running[r.Name]
		slices.Sort(ords)
		out = append(out, Entry{
			Revision: r.Revision, Name: r.Name, ChangeCause: r.Annotations[ChangeCauseAnnotation],
			Created: r.CreationTimestamp.Time, Ordinals: orEmpty(ords),
			Current: r.Name == set.Status.CurrentRevision, Update: r.Name == set.Status.UpdateRevision, Held: r.Name == held,
		})
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return int(a.Revision - b.Revision) })
	return out
}

func orEmpty(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// RenderHistory writes the set's reference ("statefulset.apps/web"), then
// kubectl's two columns first, REVISION and CHANGE-CAUSE ("<none>" when
// unset), then what kubectl does not show; a held revision's role says
// so.
func RenderHistory(w io.Writer, ref string, entries []Entry, now time.Time) {
	fmt.Fprintln(w, ref)
	if len(entries) == 0 {
		fmt.Fprintln(w, "No rollout history found.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REVISION\tCHANGE-CAUSE\tNAME\tAGE\tORDINALS\tROLE")
	for _, e := range entries {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", e.Revision, orDefault(e.ChangeCause, "<none>"), e.Name,
			Age(now.Sub(e.Created)), orDefault(Ordinals(e.Ordinals), "-"), orDefault(role(e), "-"))
	}
	_ = tw.Flush()
}

func role(e Entry) string {
	var r []string
	if e.Current {
		r = append(r, "current")
	}
	if e.Update {
		r = append(r, "update")
	}
	if e.Held {
		r = append(r, "held (failed, spec)")
	}
	return strings.Join(r, ",")
}

// Ordinals writes sorted ordinals compactly: 0-2,5.
func Ordinals(ords []int32) string {
	var parts []string
	for i := 0; i < len(ords); {
		j := i
		for j+1 < len(ords) && ords[j+1] == ords[j]+1 {
			j++
		}
		parts = append(parts, span(ords[i], ords[j]))
		i = j + 1
	}
	return strings.Join(parts, ",")
}
