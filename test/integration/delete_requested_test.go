package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func requestDelete(t *testing.T, ns, pod string) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, v1alpha1.DeleteRequestedLabel)
	if _, err := client.CoreV1().Pods(ns).Patch(context.Background(), pod, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("labelling %s: %v", pod, err)
	}
}

// Two pods labelled for deletion under OrderedReady with maxUnavailable 1
// are replaced one at a time, the second only once the first is Ready
// again; the unlabelled pod is never touched.
func TestLabelledPodsAreReplacedWithinMaxUnavailable(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3))))
	waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	before := podUIDs(t, ns)
	mark := rec.Mark()
	requestDelete(t, ns, "web-1")
	requestDelete(t, ns, "web-2")
	waitExtended(t, ns, time.Minute, "web-1 and web-2 replaced", func(set *v1alpha1.StatefulSet) error {
		now := podUIDs(t, ns)
		if now["web-1"] == before["web-1"] || now["web-2"] == before["web-2"] {
			return fmt.Errorf("not yet replaced")
		}
		return podsAre(t, ns, "web-0", "web-1", "web-2")(set)
	})
	keptUIDs(t, ns, before, "web-0")
	// Which goes first depends on which label the controller sees first;
	// the other may only go once the first is back and Ready.
	got := typedNames(rec.Since(mark, evAdded, evReady, evTerminating))
	first, second := "web-1", "web-2"
	if slices.Index(got, "TERMINATING web-2") < slices.Index(got, "TERMINATING web-1") {
		first, second = second, first
	}
	want := []string{"TERMINATING " + first, "ADDED " + first, "READY " + first, "TERMINATING " + second, "ADDED " + second}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("events: want %v first, got %v", want, got)
	}
	for _, p := range listPods(t, ns) {
		if _, ok := p.Labels[v1alpha1.DeleteRequestedLabel]; ok {
			t.Errorf("%s was created with the label", p.Name)
		}
	}
}

// Under Parallel with maxUnavailable 2, both labelled pods go at once.
func TestLabelledPodsGoTogetherUnderParallel(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3), parallel(), maxUnavailable(2))))
	waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	before := podUIDs(t, ns)
	rec := recordPods(t, ns)
	mark := rec.Mark()
	requestDelete(t, ns, "web-0")
	requestDelete(t, ns, "web-2")
	waitExtended(t, ns, time.Minute, "web-0 and web-2 replaced", func(set *v1alpha1.StatefulSet) error {
		now := podUIDs(t, ns)
		if now["web-0"] == before["web-0"] || now["web-2"] == before["web-2"] {
			return fmt.Errorf("not yet replaced")
		}
		return podsAre(t, ns, "web-0", "web-1", "web-2")(set)
	})
	keptUIDs(t, ns, before, "web-1")
	terminating := typedNames(rec.Since(mark, evTerminating, evReady))
	if len(terminating) < 2 || !slices.Contains(terminating[:2], "TERMINATING web-0") || !slices.Contains(terminating[:2], "TERMINATING web-2") {
		t.Errorf("both labelled pods should terminate before either comes back Ready: %v", terminating)
	}
}
