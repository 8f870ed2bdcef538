package planner_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// now is when every test plans; pods are Ready since testgen.Epoch, an hour
// earlier, unless a test says otherwise.
var now = testgen.Epoch.Add(time.Hour)

// fixture is a set with its current and update revisions. In a steady set
// both are the app:1 template; in a rollout the set's template is app:2.
type fixture struct {
	set      *appsv1.StatefulSet
	cur, upd *appsv1.ControllerRevision
}

func steady(opts ...testgen.SetOption) fixture {
	set := testgen.StatefulSet("web", append([]testgen.SetOption{testgen.Image("app:1")}, opts...)...)
	rev := testgen.RevisionOf(set, 1)
	set.Status.CurrentRevision, set.Status.UpdateRevision = rev.Name, rev.Name
	return fixture{set: set, cur: rev, upd: rev}
}

func rollout(opts ...testgen.SetOption) fixture {
	old := testgen.StatefulSet("web", append([]testgen.SetOption{testgen.Image("app:1")}, opts...)...)
	set := testgen.StatefulSet("web", append([]testgen.SetOption{testgen.Image("app:2")}, opts...)...)
	cur, upd := testgen.RevisionOf(old, 1), testgen.RevisionOf(set, 2)
	set.Status.CurrentRevision, set.Status.UpdateRevision = cur.Name, upd.Name
	return fixture{set: set, cur: cur, upd: upd}
}

// input plans the fixture with the given pods and claims at now.
func (f fixture) input(pods []*corev1.Pod, claims ...*corev1.PersistentVolumeClaim) planner.Input {
	return planner.Input{
		Set: f.set, Pods: pods, Claims: testgen.Claims(claims...),
		Current: f.cur, Update: f.upd, Now: now,
	}
}

// pods builds pods for the given ordinals at the current revision, Ready.
func (f fixture) pods(ordinals ...int32) []*corev1.Pod {
	var pods []*corev1.Pod
	for _, ord := range ordinals {
		pods = append(pods, testgen.Pod(f.set, ord, testgen.At(f.cur)))
	}
	return pods
}

// pod builds one pod at the current revision with extra options.
func (f fixture) pod(ord int32, opts ...testgen.PodOption) *corev1.Pod {
	return testgen.Pod(f.set, ord, append([]testgen.PodOption{testgen.At(f.cur)}, opts...)...)
}

// updated builds one pod at the update revision with extra options.
func (f fixture) updated(ord int32, opts ...testgen.PodOption) *corev1.Pod {
	return testgen.Pod(f.set, ord, append([]testgen.PodOption{testgen.At(f.upd)}, opts...)...)
}

// summary renders a plan's steps one action per line, e.g.
// "replicas: CreatePod web-3 at update" or "scale down*2: DeletePod web-4"
// (a star marks a Burst step, followed by the action's slow-start batch),
// so table tests read like the plan itself.
func (f fixture) summary(plan planner.Plan) []string {
	var lines []string
	for _, step := range plan.Steps {
		batchOf := make([]int, len(step.Actions))
		for b, i := 0, 0; b < len(step.Batches); b++ {
			for n := 0; n < step.Batches[b] && i < len(batchOf); n, i = n+1, i+1 {
				batchOf[i] = b + 1
			}
		}
		for i, a := range step.Actions {
			name := step.Name
			if step.Burst {
				name += fmt.Sprintf("*%d", batchOf[i])
			}
			lines = append(lines, fmt.Sprintf("%s: %s %s", name, a.Kind, f.object(a)))
		}
	}
	return lines
}

func (f fixture) object(a planner.Action) string {
	switch a.Kind {
	case planner.CreatePod:
		return a.Pod.Name + " at " + f.alias(a.Pod.Labels[appsv1.StatefulSetRevisionLabel])
	case planner.CreateClaim, planner.DeleteClaim:
		return a.Claim.Name
	case planner.Fail:
		return a.Pod.Name + ": " + a.Error
	case planner.UpdateClaim:
		var owners []string
		for _, ref := range a.Claim.OwnerReferences {
			owners = append(owners, ref.Kind+"/"+ref.Name)
		}
		return fmt.Sprintf("%s owners=[%s]", a.Claim.Name, strings.Join(owners, " "))
	}
	return a.Pod.Name
}

func (f fixture) alias(rev string) string {
	switch rev {
	case f.cur.Name:
		return "current"
	case f.upd.Name:
		return "update"
	}
	return rev
}

// waitLine renders a wait as "web-1: Running, not Ready".
func waitLines(plan planner.Plan) []string {
	var lines []string
	for _, w := range plan.Waits {
		lines = append(lines, w.Pod+": "+w.State)
	}
	return lines
}

func warningReasons(plan planner.Plan) []string {
	var reasons []string
	for _, w := range plan.Warnings {
		reasons = append(reasons, w.Reason+" "+w.Object)
	}
	return reasons
}

// scenario is one row of a planner table test.
type scenario struct {
	name   string
	f      fixture
	pods   []*corev1.Pod
	claims []*corev1.PersistentVolumeClaim
	steps  []string
	waits  []string
}

func runScenarios(t *testing.T, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			plan := compute(sc.f.input(sc.pods, sc.claims...))
			if diff := cmp.Diff(sc.steps, sc.f.summary(plan)); diff != "" {
				t.Errorf("steps mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(sc.waits, waitLines(plan)); diff != "" {
				t.Errorf("waits mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// with returns pods with extra pods appended, for readable tables.
func with(pods []*corev1.Pod, more ...*corev1.Pod) []*corev1.Pod {
	return append(append([]*corev1.Pod(nil), pods...), more...)
}
