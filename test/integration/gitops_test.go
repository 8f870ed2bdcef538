package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// gitOpsManager is the field manager of the re-apply loop, as Argo CD
// names its server-side applies.
const gitOpsManager = "argocd-controller"

// gitOps plays a GitOps tool with self-heal: it applies its manifest to
// the cluster by server-side apply, forcing conflicts as Argo CD and Flux
// do, every interval until the test ends. Set changes the manifest, as a
// commit to git does; the next apply takes it.
type gitOps struct {
	mu       sync.Mutex
	manifest []byte
	applies  int
	err      error
}

// reapply starts the loop for ns; the first apply happens before it
// returns, so the set exists.
func reapply(t *testing.T, ns string, interval time.Duration, set *v1alpha1.StatefulSet) *gitOps {
	t.Helper()
	g := &gitOps{}
	g.Set(t, set)
	sets := extendedSets(t, ns)
	if err := g.apply(sets); err != nil {
		t.Fatalf("first apply: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := g.apply(sets); err != nil && ctx.Err() == nil {
					g.mu.Lock()
					g.err = err
					g.mu.Unlock()
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if err := g.Err(); err != nil {
			t.Errorf("the re-apply loop: %v", err)
		}
	})
	return g
}

// Set makes set the manifest the loop applies from now on: its metadata's
// name and namespace, labels and annotations, and its spec, with no status.
func (g *gitOps) Set(t *testing.T, set *v1alpha1.StatefulSet) {
	t.Helper()
	u, err := ostsclient.ToUnstructured(set)
	if err != nil {
		t.Fatal(err)
	}
	delete(u.Object, "status")
	delete(u.Object["metadata"].(map[string]any), "creationTimestamp")
	raw, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	g.manifest = raw
	g.mu.Unlock()
}

func (g *gitOps) apply(sets ostsclient.Interface) error {
	g.mu.Lock()
	manifest := g.manifest
	g.applies++
	g.mu.Unlock()
	var m struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		return err
	}
	_, err := sets.Patch(context.Background(), m.Metadata.Name, types.ApplyPatchType, manifest,
		metav1.PatchOptions{FieldManager: gitOpsManager, Force: ptr(true)})
	if err != nil {
		return fmt.Errorf("server-side apply of %s: %w", m.Metadata.Name, err)
	}
	return nil
}

// Applies is how many applies the loop has made.
func (g *gitOps) Applies() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.applies
}

// Err is the loop's first failed apply, if any.
func (g *gitOps) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// uidRecorder records every pod UID the namespace ever had, by pod name.
type uidRecorder struct {
	mu   sync.Mutex
	seen map[types.UID]string
}

func recordUIDs(t *testing.T, ns string) *uidRecorder {
	t.Helper()
	r := &uidRecorder{seen: map[types.UID]string{}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	add := func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok {
			r.mu.Lock()
			r.seen[pod.UID] = pod.Name + "@" + pod.Labels[appsv1.ControllerRevisionHashLabelKey]
			r.mu.Unlock()
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, obj any) { add(obj) }}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("pod UID recorder did not sync")
	}
	return r
}

// Count is how many pod UIDs were seen.
func (r *uidRecorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// currentUIDs are the UIDs of the namespace's pods now, by name.
func currentUIDs(t *testing.T, ns string) map[string]types.UID {
	t.Helper()
	out := map[string]types.UID{}
	for _, p := range listPods(t, ns) {
		out[p.Name] = p.UID
	}
	return out
}

// eventCount counts the namespace's events of reason.
func eventCount(t *testing.T, ns, reason string) int {
	t.Helper()
	list, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing events: %v", err)
	}
	n := 0
	for _, e := range list.Items {
		if e.Reason == reason {
			n += int(max(e.Count, 1))
		}
	}
	return n
}

// specWriters lists the field managers of the set's main resource (not
// its status) other than the re-apply loop's, with the operation.
func specWriters(set *v1alpha1.StatefulSet) []string {
	var out []string
	for _, e := range set.ManagedFields {
		if e.Subresource == "" && e.Manager != gitOpsManager {
			out = append(out, fmt.Sprintf("%s (%s at %s)", e.Manager, e.Operation, e.Time))
		}
	}
	return out
}

// gitOpsSet is the set the loop applies: three pods, the failure policy
// given, a progress deadline of deadline seconds.
func gitOpsSet(t *testing.T, ns string, policy v1alpha1.FailurePolicy, deadline int32) *v1alpha1.StatefulSet {
	t.Helper()
	return asExtended(t, webSet(ns, replicas(3)), func(s *v1alpha1.StatefulSet) {
		s.Spec.ProgressDeadlineSeconds = ptr(deadline)
		s.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{OnFailure: policy}
	})
}

// withTemplateAnnotation is set with one more annotation on its pod
// template.
func withTemplateAnnotation(set *v1alpha1.StatefulSet, key, value string) *v1alpha1.StatefulSet {
	out := set.DeepCopy()
	if out.Spec.Template.Annotations == nil {
		out.Spec.Template.Annotations = map[string]string{}
	}
	out.Spec.Template.Annotations[key] = value
	return out
}

// gitOpsRun is what a re-apply test measured.
type gitOpsRun struct {
	ns           string
	git          *gitOps
	uids         *uidRecorder
	good, broken string
	brokenGen    int64
	brokenAt     time.Time
	window       time.Duration
	failureEvent string
}

// breakUnderGitOps creates a set of policy through a re-apply loop every
// 2 s, lets it settle, then commits a never-ready template to "git" and
// watches the set for window after the failure policy first acted:
// the spec stays the loop's (no other writer, generation unchanged), the
// pods keep their UIDs, and the failure policy acts once.
func breakUnderGitOps(t *testing.T, policy v1alpha1.FailurePolicy, event string, window time.Duration) *gitOpsRun {
	t.Helper()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	uids := recordUIDs(t, ns)
	base := gitOpsSet(t, ns, policy, 10)
	git := reapply(t, ns, 2*time.Second, base)
	good := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled).Status.UpdateRevision
	run := &gitOpsRun{ns: ns, git: git, uids: uids, good: good, window: window, failureEvent: event}
	git.Set(t, withTemplateAnnotation(base, behaviorKey, "never-ready"))
	run.brokenAt = time.Now()
	broken := waitExtended(t, ns, 30*time.Second, "the never-ready revision", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == good || s.Status.ObservedGeneration < s.Generation {
			return fmt.Errorf("update revision %s, observed generation %d of %d", s.Status.UpdateRevision, s.Status.ObservedGeneration, s.Generation)
		}
		return nil
	})
	run.broken, run.brokenGen = broken.Status.UpdateRevision, broken.Generation
	waitFor(t, time.Minute, "a "+event+" event", func() (bool, error) { return eventCount(t, ns, event) > 0, nil })
	return run
}

// watchHold checks, for the run's window, that the spec is the loop's
// alone and that no pod is replaced after settled says the set has
// settled; it reports the first break of each and logs the figures.
func (r *gitOpsRun) watchHold(t *testing.T, settled func(*v1alpha1.StatefulSet) error) {
	t.Helper()
	waitExtended(t, r.ns, time.Minute, "the set to settle under its failure policy", settled)
	pods := currentUIDs(t, r.ns)
	broke := map[string]string{}
	note := func(what, msg string) {
		if _, ok := broke[what]; !ok {
			broke[what] = msg
		}
	}
	for start := time.Now(); time.Since(start) < r.window; time.Sleep(250 * time.Millisecond) {
		set := getExtended(t, r.ns)
		if w := specWriters(set); len(w) > 0 {
			note("writers", fmt.Sprintf("the spec was written by %v, not only by %s", w, gitOpsManager))
		}
		if set.Generation != r.brokenGen {
			note("generation", fmt.Sprintf("generation %d, want %d: the spec changed, and only %s writes it", set.Generation, r.brokenGen, gitOpsManager))
		}
		if now := currentUIDs(t, r.ns); !sameUIDs(now, pods) {
			note("pods", fmt.Sprintf("pods replaced after the set settled: %v, then %v", pods, now))
		}
	}
	for _, what := range []string{"writers", "generation", "pods"} {
		if msg, ok := broke[what]; ok {
			t.Error(msg)
		}
	}
	events := eventCount(t, r.ns, r.failureEvent)
	t.Logf("re-apply loop: %d applies, %d %s events and %d pod UIDs in %s since the broken commit",
		r.git.Applies(), events, r.failureEvent, r.uids.Count(), time.Since(r.brokenAt).Round(time.Second))
	if events != 1 {
		t.Errorf("%d %s events, want 1", events, r.failureEvent)
	}
}

// retry releases the set's hold as a person does with `ordinal rollout
// resume`, and waits for the failed revision to be held again, under a
// new ID, with one more event than before: a retry fails once more and
// stops, with the pods it had.
func (r *gitOpsRun) retry(t *testing.T, held func(*v1alpha1.StatefulSet) error) {
	t.Helper()
	ctx := context.Background()
	first := getExtended(t, r.ns).Status.Hold
	before, pods := eventCount(t, r.ns, r.failureEvent), currentUIDs(t, r.ns)
	target, err := setops.LoadExtended(ctx, client, extendedClient(t), r.ns, setName)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := target.Resume(ctx)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	t.Logf("resume: %s", msg)
	again := waitExtended(t, r.ns, time.Minute, "a new hold after the retry", func(s *v1alpha1.StatefulSet) error {
		if s.Status.Hold == nil || s.Status.Hold.ID == first.ID {
			return fmt.Errorf("hold %+v, want one other than %s", s.Status.Hold, first.ID)
		}
		return held(s)
	})
	if got := again.Annotations[v1alpha1.ReleaseHoldAnnotation]; got != first.ID {
		t.Errorf("release annotation %q, want %q", got, first.ID)
	}
	if again.Generation != r.brokenGen {
		t.Errorf("generation %d after the retry, want %d: resume changed the spec", again.Generation, r.brokenGen)
	}
	waitFor(t, 10*time.Second, "one more event", func() (bool, error) { return eventCount(t, r.ns, r.failureEvent) == before+1, nil })
	if now := currentUIDs(t, r.ns); !sameUIDs(now, pods) {
		t.Errorf("pods replaced by the retry of a paused rollout: %v, then %v", pods, now)
	}
}

// fix commits a template that works to "git" and waits until the set runs
// it everywhere.
func (r *gitOpsRun) fix(t *testing.T, set *v1alpha1.StatefulSet) *v1alpha1.StatefulSet {
	t.Helper()
	r.git.Set(t, withTemplateAnnotation(set, "fixed", "yes"))
	return waitExtended(t, r.ns, 2*time.Minute, "the fixed template rolled out", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == r.good || s.Status.UpdateRevision == r.broken {
			return fmt.Errorf("update revision %s is not the fixed one", s.Status.UpdateRevision)
		}
		return extendedSettled(s)
	})
}

func sameUIDs(a, b map[string]types.UID) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// heldAs accepts a set whose status holds the run's broken revision with
// action, running revision, with condition Held True.
func (r *gitOpsRun) heldAs(action v1alpha1.HoldAction, revision string) func(*v1alpha1.StatefulSet) error {
	return func(s *v1alpha1.StatefulSet) error {
		h := s.Status.Hold
		if h == nil || h.Action != action || h.FailedRevision != r.broken || h.Revision != revision {
			return fmt.Errorf("hold %+v, want %s of %s running %s", h, action, r.broken, revision)
		}
		if c := condition(s, v1alpha1.ConditionHeld); c.Status != metav1.ConditionTrue || c.Reason != string(action) {
			return fmt.Errorf("condition Held %s/%s, want True/%s", c.Status, c.Reason, action)
		}
		return nil
	}
}

// notHeld accepts a set whose hold ended because the spec changed.
func notHeld(s *v1alpha1.StatefulSet) error {
	if s.Status.Hold != nil {
		return fmt.Errorf("still held: %+v", s.Status.Hold)
	}
	if c := condition(s, v1alpha1.ConditionHeld); c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.HoldSpecChanged {
		return fmt.Errorf("condition Held %s/%s, want False/%s", c.Status, c.Reason, v1alpha1.HoldSpecChanged)
	}
	return nil
}

// Under a GitOps tool that re-applies its manifest every 2 s, a rollout
// that fails is rolled back once: the set runs the last good revision
// while git still says the broken one (status.hold), the controller
// writes no spec, and no pod is replaced again until git changes; a fix
// from git then rolls out and ends the hold.
func TestARollbackHoldsUnderAGitOpsReapplyLoop(t *testing.T) {
	t.Parallel()
	run := breakUnderGitOps(t, v1alpha1.FailureRollback, "RolledBack", 40*time.Second)
	held := run.heldAs(v1alpha1.HoldRolledBack, run.good)
	run.watchHold(t, func(s *v1alpha1.StatefulSet) error {
		if err := extendedSettled(s); err != nil {
			return err
		}
		if s.Status.UpdateRevision != run.good {
			return fmt.Errorf("update revision %s, want %s, the last good one", s.Status.UpdateRevision, run.good)
		}
		return held(s)
	})
	if err := held(getExtended(t, run.ns)); err != nil {
		t.Errorf("after the window: %v", err)
	}
	fixed := run.fix(t, gitOpsSet(t, run.ns, v1alpha1.FailureRollback, 10))
	if err := notHeld(fixed); err != nil {
		t.Error(err)
	}
}

// The same under onFailure Pause: the rollout stops once where it failed
// and the spec stays git's. A person then retries the held revision
// (`ordinal rollout resume`, which names the hold in an annotation): it
// fails again and is held again under a new ID, once, not in a loop. A
// fix from git then rolls out and ends the hold.
func TestAPauseHoldsUnderAGitOpsReapplyLoop(t *testing.T) {
	t.Parallel()
	run := breakUnderGitOps(t, v1alpha1.FailurePause, "RolloutPaused", 40*time.Second)
	held := run.heldAs(v1alpha1.HoldPaused, run.broken)
	run.watchHold(t, func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdatedReplicas != 1 || s.Status.UpdateRevision != run.broken {
			return fmt.Errorf("updated replicas %d at %s, want 1 at %s", s.Status.UpdatedReplicas, s.Status.UpdateRevision, run.broken)
		}
		return held(s)
	})
	run.retry(t, held)
	fixed := run.fix(t, gitOpsSet(t, run.ns, v1alpha1.FailurePause, 10))
	if err := notHeld(fixed); err != nil {
		t.Error(err)
	}
}
