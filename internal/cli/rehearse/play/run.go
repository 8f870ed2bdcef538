package play

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/forecast"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/learn"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/shape"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// Play is what every run plays: the copy, the timings its pods play, the
// set before and after the change, and how long to wait.
type Play struct {
	Copy     shape.Copy
	Timings  learn.Timings
	Proposal shape.Proposal
	// Extras are what the extended kind gets when the source is apps/v1.
	Extras shape.Extras
	Limits forecast.Limits
	// Setup bounds the copy's start, before the change.
	Setup time.Duration
}

// Run plays the change under one contender in a namespace of its own:
// the copy's objects and the set as it was, under the contender until
// every pod is Ready; then the change, observed until the rollout ends
// (forecast.Judge); then the namespace is deleted, so the next run has
// the nodes to itself.
func (s *Stage) Run(ctx context.Context, p Play, c Contender) (forecast.Run, error) {
	ns := "rehearse-" + c.Key
	before, notes, err := p.Proposal.Before.As(c.Kind, p.Extras)
	if err != nil {
		return forecast.Run{}, err
	}
	after, _, err := p.Proposal.After.As(c.Kind, p.Extras)
	if err != nil {
		return forecast.Run{}, err
	}
	before, hooks := before.Disarm()
	after, _ = after.Disarm()
	notes = append(notes, hooks...)
	if err := s.build(ctx, ns, p, before); err != nil {
		return forecast.Run{}, errors.Join(err, s.clear(ns))
	}
	r, err := s.roll(ctx, ns, p, c, before, after, len(hooks) > 0)
	r.Notes = append(notes, r.Notes...)
	return r, errors.Join(err, s.clear(ns))
}

// build makes the copy's namespace and everything in it but the set.
func (s *Stage) build(ctx context.Context, ns string, p Play, set shape.Set) error {
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{copyLabel: "true"}}}
	if _, err := s.client.CoreV1().Namespaces().Create(ctx, nsObj, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("making the copy's namespace %s: %w", ns, err)
	}
	if err := awaitTimings(ctx, s.client, ns, set.Name()+"-0", p.Timings); err != nil {
		return err
	}
	for _, sa := range p.Copy.ServiceAccounts {
		if _, err := s.client.CoreV1().ServiceAccounts(ns).Create(ctx, sa.DeepCopy(), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("copying ServiceAccount %s: %w", sa.Name, err)
		}
	}
	for _, svc := range p.Copy.Services {
		if _, err := s.client.CoreV1().Services(ns).Create(ctx, svc.DeepCopy(), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("copying Service %s: %w", svc.Name, err)
		}
	}
	for _, b := range p.Copy.Budgets {
		if _, err := s.client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, b.DeepCopy(), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("copying PodDisruptionBudget %s: %w", b.Name, err)
		}
	}
	for _, cl := range p.Copy.Claims {
		if _, err := s.client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, cl.DeepCopy(), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("copying claim %s: %w", cl.Name, err)
		}
	}
	return nil
}

// clear deletes the copy's namespace, its pods at once, and waits until
// it is gone.
func (s *Stage) clear(ns string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_ = s.client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, metav1.ListOptions{})
	if err := s.client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the copy's namespace %s: %w", ns, err)
	}
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := s.client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("the copy's namespace %s was not deleted within 2 minutes: %w", ns, err)
	}
	return nil
}

// writesOf is the writes between two counts, by count then name.
func writesOf(before, after map[shape.Request]int) ([]forecast.Write, int) {
	var out []forecast.Write
	total := 0
	for r, n := range after {
		if d := n - before[r]; d > 0 && !r.Read() {
			out = append(out, forecast.Write{Verb: r.Verb, Resource: r.Resource, Count: d})
			total += d
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Resource+out[i].Verb < out[j].Resource+out[j].Verb
	})
	return out, total
}

// budgetsOf judges the copy's budgets on a run's counts.
func budgetsOf(c shape.Copy, replicas int32, counts []forecast.Count, end time.Duration) ([]forecast.Budget, []string) {
	var out []forecast.Budget
	var notes []string
	for _, b := range c.Budgets {
		needs, err := forecast.BudgetNeeds(b.Spec.MinAvailable, b.Spec.MaxUnavailable, int(replicas))
		if err != nil {
			notes = append(notes, fmt.Sprintf("PodDisruptionBudget %s: %v", b.Name, err))
			continue
		}
		out = append(out, forecast.CheckBudget(b.Name, needs, counts, end))
	}
	return out, notes
}

// ref names the set for setops in the copy.
func ref(set shape.Set) setops.Ref {
	return setops.Ref{Kind: set.Kind(), Name: set.Name()}
}
