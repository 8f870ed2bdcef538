package play

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/forecast"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/shape"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// samplePeriod is how often a run asks the planner what the rollout waits
// for and reads the set's status and events.
const samplePeriod = 250 * time.Millisecond

// roll runs the contender on the copy: the set as it was until it is
// Ready and the controller is quiet, then the change until Judge ends it.
func (s *Stage) roll(ctx context.Context, ns string, p Play, c Contender, before, after shape.Set, hooks bool) (forecast.Run, error) {
	runCtx, stop := context.WithCancel(ctx)
	counter := shape.NewCounter(false)
	rc := s.plane.RESTConfig()
	counter.Wrap(rc)
	done := running(func() error { return c.run(runCtx, rc, ns, s) })
	defer func() {
		stop()
		select {
		case <-done.stopped:
		case <-time.After(15 * time.Second):
			s.log("%s did not stop within 15s", c.Name)
		}
	}()
	pw, err := watchPods(runCtx, s.client, ns, before.Name())
	if err != nil {
		return forecast.Run{}, err
	}
	if hooks {
		if err := answerHooks(runCtx, s.client, ns); err != nil {
			return forecast.Run{}, err
		}
	}
	if err := s.create(ctx, ns, before); err != nil {
		return forecast.Run{}, err
	}
	s.log("%s: the copy starts (%d pods)", c.Name, replicas(before))
	from, err := s.waitSetup(ctx, ns, before, p.Setup, done)
	if err != nil {
		return forecast.Run{}, err
	}
	quiet(ctx, counter)
	s.log("%s: the copy runs revision %s; changing it", c.Name, from)
	o := &observation{stage: s, ns: ns, set: after, pods: pw, from: from, events: map[string]forecast.Event{}}
	baseline := counter.Counts()
	o.t0 = time.Now()
	pw.start(o.t0)
	if o.gen, err = s.update(ctx, ns, after); err != nil {
		return forecast.Run{}, err
	}
	outcome, err := o.until(ctx, p.Limits, done)
	if err != nil {
		return forecast.Run{}, err
	}
	r := o.result(outcome, p)
	r.Controller, r.Kind = c.Name, c.Kind.APIVersion()
	r.Writes, r.WritesTotal = writesOf(baseline, counter.Counts())
	s.log("%s: %s in %s", c.Name, r.Outcome, r.Seconds)
	return r, nil
}

func replicas(set shape.Set) int32 {
	if set.Extended != nil {
		return ptr.Deref(set.Extended.Spec.Replicas, 1)
	}
	return ptr.Deref(set.Apps.Spec.Replicas, 1)
}

// partition is the ordinal of the rolling update's partition: pods below
// it keep their revision. A partition counted in pods (the extended
// kind's partitionMode Count) is not an ordinal: the run then waits for
// every pod.
func partition(set shape.Set) int32 {
	if x := set.Extended; x != nil {
		ru := x.Spec.UpdateStrategy.RollingUpdate
		if ru == nil || ru.PartitionMode == v1alpha1.PartitionCount {
			return 0
		}
		return ptr.Deref(ru.Partition, 0)
	}
	if ru := set.Apps.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		return ptr.Deref(ru.Partition, 0)
	}
	return 0
}

func minReady(set shape.Set) time.Duration {
	if set.Extended != nil {
		return time.Duration(set.Extended.Spec.MinReadySeconds) * time.Second
	}
	return time.Duration(set.Apps.Spec.MinReadySeconds) * time.Second
}

// create creates the set in the copy.
func (s *Stage) create(ctx context.Context, ns string, set shape.Set) error {
	var err error
	if set.Extended != nil {
		_, err = s.ext.StatefulSets(ns).Create(ctx, set.Extended, metav1.CreateOptions{})
	} else {
		_, err = s.client.AppsV1().StatefulSets(ns).Create(ctx, set.Apps, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("creating the copy of %s: %w", set.Name(), err)
	}
	return nil
}

// update gives the copy the changed spec, and returns its generation.
func (s *Stage) update(ctx context.Context, ns string, set shape.Set) (int64, error) {
	if set.Extended != nil {
		cur, err := s.ext.StatefulSets(ns).Get(ctx, set.Name(), metav1.GetOptions{})
		if err != nil {
			return 0, fmt.Errorf("reading the copy of %s: %w", set.Name(), err)
		}
		cur.Spec = set.Extended.Spec
		if cur, err = s.ext.StatefulSets(ns).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			return 0, fmt.Errorf("the API server refuses the change: %w", err)
		}
		return cur.Generation, nil
	}
	cur, err := s.client.AppsV1().StatefulSets(ns).Get(ctx, set.Name(), metav1.GetOptions{})
	if err != nil {
		return 0, fmt.Errorf("reading the copy of %s: %w", set.Name(), err)
	}
	cur.Spec = set.Apps.Spec
	if cur, err = s.client.AppsV1().StatefulSets(ns).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		return 0, fmt.Errorf("the API server refuses the change: %w", err)
	}
	return cur.Generation, nil
}

// waitSetup waits until the copy's controller has every pod Ready at one
// revision, and returns it; for the extended kind, until it has also
// recorded that revision as completed, which a rollback returns to.
func (s *Stage) waitSetup(ctx context.Context, ns string, set shape.Set, timeout time.Duration, done *controllerRun) (string, error) {
	want := replicas(set)
	var rev, why string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		select {
		case <-done.stopped:
			return false, fmt.Errorf("%w: %w", errStopped, done.err)
		case err := <-s.plane.Err():
			return false, err
		default:
		}
		t, err := setops.Find(ctx, s.client, s.ext, ns, ref(set))
		if err != nil {
			why = err.Error()
			return false, nil
		}
		st := t.Set.Status
		rev = st.UpdateRevision
		switch {
		case st.ObservedGeneration < t.Set.Generation || rev == "" || st.CurrentRevision != rev:
			why = "the controller has not yet made the set's revision"
		case st.ReadyReplicas != want || st.AvailableReplicas != want || st.UpdatedReplicas != want:
			why = fmt.Sprintf("%d of %d pods Ready; %s", st.ReadyReplicas, want, s.unready(ctx, ns))
		case t.Extended != nil && t.Extended.Status.LastCompletedRevision != rev:
			why = "the extended kind has not yet recorded its first revision as completed"
		default:
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return "", fmt.Errorf("the copy did not come up within %s: %s: %w", timeout, why, err)
	}
	return rev, nil
}

// unready says why the copy's first pods that are not Ready are not.
func (s *Stage) unready(ctx context.Context, ns string) string {
	list, err := s.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, pod := range list.Items {
		for _, c := range pod.Status.Conditions {
			if c.Status != corev1.ConditionTrue && c.Message != "" && len(out) < 3 {
				out = append(out, fmt.Sprintf("%s %s: %s", pod.Name, c.Type, c.Message))
			}
		}
	}
	if len(out) == 0 {
		return "the pods are starting"
	}
	return strings.Join(out, "; ")
}

// quiet waits until the controller's requests stop for a second (its
// events and held-back status written), at most 10s, so that the change
// is measured from rest.
func quiet(ctx context.Context, c *shape.Counter) {
	last := c.Counts()
	_ = wait.PollUntilContextTimeout(ctx, time.Second, 10*time.Second, false, func(context.Context) (bool, error) {
		now := c.Counts()
		same := maps.Equal(now, last)
		last = now
		return same, nil
	})
}

// errStopped is a run whose controller stopped on its own.
var errStopped = errors.New("the controller stopped during the run")

// controllerRun is a contender running in a goroutine: stopped is closed
// when it returns, err is then what it returned.
type controllerRun struct {
	stopped chan struct{}
	err     error
}

func running(run func() error) *controllerRun {
	c := &controllerRun{stopped: make(chan struct{})}
	go func() {
		defer close(c.stopped)
		c.err = run()
	}()
	return c
}
