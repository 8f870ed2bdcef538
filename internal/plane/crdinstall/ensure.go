package crdinstall

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ordinal-sh/ordinal/internal/conflict"
)

// Ensure creates want, or updates the CRD of its name to want, then
// waits up to timeout for it to be Established. A CRD whose names the API
// server refuses (NamesAccepted False) fails at once with the server's
// reason.
func Ensure(ctx context.Context, client apiextensionsclient.Interface, want *apiextensionsv1.CustomResourceDefinition, timeout time.Duration) error {
	if err := applyCRD(ctx, client, want); err != nil {
		return fmt.Errorf("installing CustomResourceDefinition %s: %w", want.Name, err)
	}
	if err := waitEstablished(ctx, client, want.Name, timeout); err != nil {
		return fmt.Errorf("CustomResourceDefinition %s did not become Established: %w", want.Name, err)
	}
	return nil
}

// waitEstablished polls the CRD until it is Established, its names are
// refused, or timeout passes; a timeout's error says what was last seen.
func waitEstablished(ctx context.Context, client apiextensionsclient.Interface, name string, timeout time.Duration) error {
	var last *apiextensionsv1.CustomResourceDefinition
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			// Perhaps transient: poll again until the deadline, and say
			// what it was if the deadline comes.
			lastErr = err
			return false, nil
		}
		last, lastErr = got, nil
		if c := crdCondition(got, apiextensionsv1.NamesAccepted); c != nil && c.Status == apiextensionsv1.ConditionFalse {
			return false, fmt.Errorf("names not accepted: %s: %s", c.Reason, c.Message)
		}
		c := crdCondition(got, apiextensionsv1.Established)
		return c != nil && c.Status == apiextensionsv1.ConditionTrue, nil
	})
	switch {
	case err == nil || !wait.Interrupted(err):
		return err
	case lastErr != nil:
		return fmt.Errorf("%w; last read: %w", err, lastErr)
	default:
		return fmt.Errorf("%w%s", err, conditionsOf(last))
	}
}

// applyCRD creates want or replaces the spec of the existing CRD with it.
func applyCRD(ctx context.Context, client apiextensionsclient.Interface, want *apiextensionsv1.CustomResourceDefinition) error {
	crds := client.ApiextensionsV1().CustomResourceDefinitions()
	return conflict.Retry(func() error {
		existing, err := crds.Get(ctx, want.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = crds.Create(ctx, want, metav1.CreateOptions{FieldManager: fieldManager})
			if err != nil {
				return fmt.Errorf("creating: %w", err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading: %w", err)
		}
		updated := existing.DeepCopy()
		updated.Spec = want.Spec
		updated.Labels = merged(updated.Labels, want.Labels)
		updated.Annotations = merged(updated.Annotations, want.Annotations)
		if _, err := crds.Update(ctx, updated, metav1.UpdateOptions{FieldManager: fieldManager}); err != nil {
			return fmt.Errorf("updating: %w", err)
		}
		return nil
	})
}

// merged is dst with src's entries set, leaving dst's other entries (a
// kubectl apply's record, say) alone.
func merged(dst, src map[string]string) map[string]string {
	if len(src) > 0 && dst == nil {
		dst = map[string]string{}
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

// fieldManager names the plane in the CRD's managed fields.
const fieldManager = "ordinal"

func crdCondition(c *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) *apiextensionsv1.CustomResourceDefinitionCondition {
	for i := range c.Status.Conditions {
		if c.Status.Conditions[i].Type == t {
			return &c.Status.Conditions[i]
		}
	}
	return nil
}

// conditionsOf describes a CRD's last seen conditions for an error message.
func conditionsOf(c *apiextensionsv1.CustomResourceDefinition) string {
	if c == nil {
		return ""
	}
	s := "; last conditions:"
	for _, cond := range c.Status.Conditions {
		s += fmt.Sprintf(" %s=%s (%s: %s)", cond.Type, cond.Status, cond.Reason, cond.Message)
	}
	if len(c.Status.Conditions) == 0 {
		s += " none"
	}
	return s
}
