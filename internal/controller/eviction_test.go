package controller

import (
	"errors"
	"fmt"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestBackoffDoublesFromOneSecondToThirty(t *testing.T) {
	var got []time.Duration
	for n := 1; n <= 7; n++ {
		got = append(got, backoff(n))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("backoff 1..7 = %v, want %v", got, want)
	}
}

func TestBudgetRefusalTellsABudgetFromOtherErrors(t *testing.T) {
	tooMany := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	tooMany.ErrStatus.Details.Causes = append(tooMany.ErrStatus.Details.Causes, metaCause("The disruption budget web needs 3 healthy pods and has 3 currently"))
	// The API server's own status for a pod under two budgets.
	twoBudgets := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError,
		Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}}
	for _, tc := range []struct {
		name    string
		err     error
		refused bool
	}{
		{"429 from a budget", tooMany, true},
		{"429 wrapped", fmt.Errorf("evicting: %w", tooMany), true},
		{"a pod under two budgets", twoBudgets, true},
		{"a budget the server cannot use", apierrors.NewForbidden(schema.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}, "web", errors.New("pdb disruptions allowed is negative")), true},
		{"no permission to evict", apierrors.NewForbidden(schema.GroupResource{Resource: "pods/eviction"}, "web-0", errors.New("denied")), false},
		{"another server error", apierrors.NewInternalError(errors.New("etcd timeout")), false},
		{"not an API error", errors.New("connection refused"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := budgetRefusal(tc.err); got != tc.refused {
				t.Errorf("budgetRefusal = %v, want %v", got, tc.refused)
			}
		})
	}
	if got, want := refusalMessage(tooMany), "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web needs 3 healthy pods and has 3 currently"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func metaCause(msg string) metav1.StatusCause {
	return metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: msg}
}
