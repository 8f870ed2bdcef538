package integration

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

const imageNewer = "registry.k8s.io/nginx-slim:0.10"

// run is one execution of a scenario in one namespace under one
// controller. Steps split the recorded pod events, so two runs compare
// step by step.
type run struct {
	t     *testing.T
	ns    string
	rec   *recorder
	marks []int
}

// step closes the current step of the scenario.
func (r *run) step() { r.marks = append(r.marks, r.rec.Mark()) }

// outcome is what a user can observe of a run.
type outcome struct {
	Steps     [][]podEvent // ADDED and DELETED events, step by step
	Revisions []revisionView
	Status    appsv1.StatefulSetStatus
	// Events are the distinct events recorded on the set, "Type Reason:
	// Message"; which component recorded them, and how often, may differ.
	Events []string
}

type revisionView struct {
	Name     string
	Revision int64
	Hash     string // the controller.kubernetes.io/hash label
	Data     string
}

func (r *run) outcome(sortSteps bool) outcome {
	var out outcome
	prev := 0
	for _, m := range r.marks {
		events := r.rec.Between(prev, m, evAdded, evDeleted)
		if sortSteps {
			slices.SortFunc(events, func(a, b podEvent) int { return strings.Compare(a.String(), b.String()) })
		}
		out.Steps = append(out.Steps, events)
		prev = m
	}
	for _, rev := range listRevisions(r.t, r.ns) {
		out.Revisions = append(out.Revisions, revisionView{rev.Name, rev.Revision, rev.Labels[hashLabel], string(rev.Data.Raw)})
	}
	out.Status = getSet(r.t, r.ns).Status
	// A condition's transition time is when its controller set it, which
	// two runs never share.
	for i := range out.Status.Conditions {
		out.Status.Conditions[i].LastTransitionTime = metav1.Time{}
	}
	// Upstream names the set's namespace in some messages (a Recreate set
	// with the gate off), and each run has its own namespace.
	for _, e := range setEvents(r.t, r.ns) {
		out.Events = append(out.Events, strings.ReplaceAll(e, " "+r.ns+"/", " NS/"))
	}
	return out
}

const (
	hashLabel      = "controller.kubernetes.io/hash"
	combinedPrefix = "(combined from similar events): "
)

// setEvents returns the distinct events recorded on the namespace's
// StatefulSets, sorted, once two reads a second apart agree: both
// controllers' recorders write events asynchronously.
func setEvents(t *testing.T, ns string) []string {
	t.Helper()
	var last []string
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		got := distinctSetEvents(list.Items)
		stable := last != nil && slices.Equal(got, last)
		last = got
		return stable, nil
	})
	if err != nil {
		t.Fatalf("the set's events in %s did not settle within 30s: last read %v", ns, last)
	}
	return last
}

// ordinalInName matches a pod's or a claim's ordinal suffix in an event's
// message.
var ordinalInName = regexp.MustCompile(`(\b[a-z0-9.-]*[a-z0-9])-[0-9]+\b`)

// distinctSetEvents returns the distinct "Type Reason: Message" lines of
// the events on StatefulSets, sorted. Past ten similar events (same type
// and reason) in ten minutes, client-go's recorder folds the next ones into
// one event carrying the latest message; which messages were folded
// depends on the order of concurrent requests, so in a folded group the
// ordinals are left out of the messages and only their wording is kept.
func distinctSetEvents(events []corev1.Event) []string {
	folded := map[string]bool{}
	for _, e := range events {
		if strings.HasPrefix(e.Message, combinedPrefix) {
			folded[e.Type+" "+e.Reason] = true
		}
	}
	seen := map[string]bool{}
	got := []string{}
	for _, e := range events {
		if e.InvolvedObject.Kind != "StatefulSet" {
			continue
		}
		group := e.Type + " " + e.Reason
		message := e.Message
		if folded[group] {
			message = ordinalInName.ReplaceAllString(strings.TrimPrefix(message, combinedPrefix), "$1-N")
		}
		if line := group + ": " + message; !seen[line] {
			seen[line] = true
			got = append(got, line)
		}
	}
	slices.Sort(got)
	return got
}

// differential runs scenario twice at once, under upstream's controller and
// under Ordinal's, each in its own namespace, and returns both outcomes.
func differential(t *testing.T, sortSteps bool, scenario func(*run)) (builtin, ordinal outcome, ok bool) {
	t.Helper()
	var out [2]outcome
	t.Run("both", func(t *testing.T) {
		for i, c := range []struct {
			name  string
			start func(*testing.T, string)
		}{{"builtin", startBuiltin}, {"ordinal", startOrdinal}} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				ns := newNamespace(t)
				c.start(t, ns)
				r := &run{t: t, ns: ns, rec: recordPods(t, ns)}
				scenario(r)
				out[i] = r.outcome(sortSteps)
			})
		}
	})
	return out[0], out[1], !t.Failed()
}

func compareOutcomes(t *testing.T, builtin, ordinal outcome) {
	t.Helper()
	if diff := cmp.Diff(builtin.Steps, ordinal.Steps); diff != "" {
		t.Errorf("pod events differ (-builtin +ordinal):\n%s", diff)
	}
	if diff := cmp.Diff(builtin.Revisions, ordinal.Revisions); diff != "" {
		t.Errorf("controller revisions differ (-builtin +ordinal):\n%s", diff)
	}
	if diff := cmp.Diff(builtin.Status, ordinal.Status); diff != "" {
		t.Errorf("final status differs (-builtin +ordinal):\n%s", diff)
	}
	if diff := cmp.Diff(builtin.Events, ordinal.Events); diff != "" {
		t.Errorf("events differ (-builtin +ordinal):\n%s", diff)
	}
}

// rollBack does what `kubectl rollout undo` does: PATCH the set with the
// previous revision's data as a strategic merge patch.
func rollBack(t *testing.T, ns string) {
	t.Helper()
	revs := listRevisions(t, ns)
	if len(revs) < 2 {
		t.Fatalf("no previous revision to roll back to: %v", describeRevisions(revs))
	}
	prev := revs[len(revs)-2]
	if _, err := client.AppsV1().StatefulSets(ns).Patch(context.Background(), setName, types.StrategicMergePatchType, prev.Data.Raw, metav1.PatchOptions{}); err != nil {
		t.Fatalf("rolling back to %s: %v", prev.Name, err)
	}
}

// partitionedAt accepts a set whose wanted pods are ready with exactly
// updated of them at the update revision, the rest not yet.
func partitionedAt(updated int32) func(*appsv1.StatefulSet) error {
	return func(set *appsv1.StatefulSet) error {
		st, want := set.Status, *set.Spec.Replicas
		if st.ObservedGeneration < set.Generation || st.Replicas != want || st.ReadyReplicas != want ||
			st.UpdatedReplicas != updated || st.CurrentReplicas != want-updated || st.CurrentRevision == st.UpdateRevision {
			return fmt.Errorf("want %d of %d updated", updated, want)
		}
		return nil
	}
}

// lifecycle: create 3 with a claim template, scale to 5, scale to 2,
// update the image, roll back, then a partitioned update.
func lifecycle(opts ...setOption) func(*run) {
	return func(r *run) {
		t, ns := r.t, r.ns
		createSet(t, webSet(ns, append([]setOption{replicas(3), withClaims()}, opts...)...))
		rev1 := waitSet(t, ns, time.Minute, "3 ready replicas", settled).Status.UpdateRevision
		r.step()
		updateSet(t, ns, setReplicas(5))
		waitSet(t, ns, time.Minute, "5 ready replicas", settled)
		r.step()
		updateSet(t, ns, setReplicas(2))
		waitSet(t, ns, time.Minute, "2 ready replicas", settled)
		waitFor(t, 30*time.Second, "scaled-down pods gone", func() (bool, error) {
			return len(listPods(t, ns)) == 2, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
		})
		r.step()
		updateSet(t, ns, setImage(imageNew))
		rev2 := waitSet(t, ns, time.Minute, "the image update", updatedFrom(rev1)).Status.UpdateRevision
		r.step()
		rollBack(t, ns)
		waitSet(t, ns, time.Minute, "the rollback", updatedFrom(rev2))
		r.step()
		updateSet(t, ns, func(s *appsv1.StatefulSet) {
			partition(1)(s)
			s.Spec.Template.Spec.Containers[0].Image = imageNewer
		})
		waitSet(t, ns, time.Minute, "the partitioned update", partitionedAt(1))
		r.step()
	}
}

func TestDifferentialOrderedReadyLifecycle(t *testing.T) {
	t.Parallel()
	builtin, ordinal, ok := differential(t, false, lifecycle())
	if ok {
		compareOutcomes(t, builtin, ordinal)
	}
}

// Parallel creates and deletes in concurrent batches, so the order of
// events within a step is not defined, not even between two runs of the
// same controller: each step's events are compared as a sorted list.
func TestDifferentialParallelLifecycle(t *testing.T) {
	t.Parallel()
	builtin, ordinal, ok := differential(t, true, lifecycle(parallel()))
	if ok {
		compareOutcomes(t, builtin, ordinal)
	}
}

// TestDifferentialOnDeleteUpdate: once every pod runs the update revision
// of an OnDelete set, currentRevision is promoted, as upstream does from
// 1.37 (1.36 never did, #73492).
func TestDifferentialOnDeleteUpdate(t *testing.T) {
	t.Parallel()
	builtin, ordinal, ok := differential(t, false, func(r *run) {
		t, ns := r.t, r.ns
		createSet(t, webSet(ns, replicas(3), onDelete()))
		rev1 := waitSet(t, ns, time.Minute, "3 ready replicas", settled).Status.UpdateRevision
		r.step()
		updateSet(t, ns, setImage(imageNew))
		rev2 := waitSet(t, ns, 30*time.Second, "a new update revision", func(set *appsv1.StatefulSet) error {
			if set.Status.ObservedGeneration < set.Generation || set.Status.UpdateRevision == rev1 {
				return fmt.Errorf("no new update revision yet")
			}
			return nil
		}).Status.UpdateRevision
		want := map[string]string{"web-0": rev1, "web-1": rev1, "web-2": rev1}
		for _, name := range []string{"web-2", "web-0", "web-1"} {
			deletePod(t, ns, name)
			want[name] = rev2
			waitFor(t, time.Minute, name+" back at the update revision", podsAt(t, ns, want))
		}
		waitSet(t, ns, 30*time.Second, "all pods updated and the revision promoted", settled)
		r.step()
	})
	if ok {
		compareOutcomes(t, builtin, ordinal)
	}
}

// TestDifferentialBrokenOldPodWithMaxUnavailable is upstream #137409, fixed
// in 1.37: under Parallel with maxUnavailable 1, an old-revision pod that
// is already broken no longer uses up the budget and stalls the rollout
// (1.36 with the gate on never replaced it); it is replaced first.
func TestDifferentialBrokenOldPodWithMaxUnavailable(t *testing.T) {
	t.Parallel()
	builtin, ordinal, ok := differential(t, true, func(r *run) {
		t, ns := r.t, r.ns
		good, _ := breakThenRevert(t, ns)
		waitFor(t, time.Minute, "every pod back at the good revision", podsAt(t, ns, map[string]string{"web-0": good, "web-1": good, "web-2": good}))
		waitSet(t, ns, time.Minute, "the rollout to finish", settled)
		r.step()
	})
	if ok {
		compareOutcomes(t, builtin, ordinal)
	}
}

// TestDifferentialParallelTwoPhaseMaxUnavailable is upstream 1.37's
// two-phase update under Parallel: with maxUnavailable 2, a broken
// template takes down two pods and stalls; the revert first replaces the
// two broken pods, which cost nothing, and only then the available ones
// within the budget.
func TestDifferentialParallelTwoPhaseMaxUnavailable(t *testing.T) {
	t.Parallel()
	builtin, ordinal, ok := differential(t, true, func(r *run) {
		t, ns := r.t, r.ns
		createSet(t, webSet(ns, replicas(4), parallel(), maxUnavailable(2)))
		good := waitSet(t, ns, time.Minute, "4 ready replicas", settled).Status.UpdateRevision
		r.step()
		updateSet(t, ns, podAnnotation(behaviorKey, "never-ready"))
		var broken string
		waitFor(t, time.Minute, "web-3 and web-2 at the broken revision", func() (bool, error) {
			p3, ok3 := getPod(t, ns, "web-3")
			p2, ok2 := getPod(t, ns, "web-2")
			if !ok3 || !ok2 || podRev(p3) == good || podRev(p2) == good || p3.Status.Phase != corev1.PodRunning || p2.Status.Phase != corev1.PodRunning {
				return false, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
			}
			broken = podRev(p3)
			return true, nil
		})
		consistently(t, 2*time.Second, "the rollout stalls with two pods unavailable", func() error {
			for name, rev := range map[string]string{"web-0": good, "web-1": good, "web-2": broken, "web-3": broken} {
				if p, ok := getPod(t, ns, name); !ok || podRev(p) != rev || p.DeletionTimestamp != nil {
					return fmt.Errorf("want web-0, web-1 at %s and web-2, web-3 at %s: pods %s", good, broken, describePods(listPods(t, ns)))
				}
			}
			return nil
		})
		r.step()
		updateSet(t, ns, func(s *appsv1.StatefulSet) { delete(s.Spec.Template.Annotations, behaviorKey) })
		waitFor(t, time.Minute, "every pod back at the good revision", podsAt(t, ns, map[string]string{"web-0": good, "web-1": good, "web-2": good, "web-3": good}))
		waitSet(t, ns, time.Minute, "the rollout to finish", settled)
		r.step()
	})
	if ok {
		compareOutcomes(t, builtin, ordinal)
	}
}
