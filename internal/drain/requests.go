package drain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/kubeclient"
)

// A drain through eviction requests (KEP-4563, lifecycle.k8s.io/v1alpha1)
// asks each pod to go with an EvictionRequest instead of evicting it: the
// responders the pod names (an extended set's controller among them) have
// their turn first, by priority, and the last, the imperative evictor,
// evicts it through the Eviction API, under its PodDisruptionBudgets. The
// drain waits until the pod is gone, printing each change of the active
// responder's message, then deletes its request once the request reports
// the pod evicted (or after requestSettle). A request that fails ends the
// drain with its reason; at the drain's timeout the requests still
// outstanding are withdrawn, so that nothing evicts after the drain gave
// up.

// Ways a drain asks pods to go (Options.Via).
const (
	ViaAuto             = "auto"
	ViaEvictionRequests = "eviction-requests"
	ViaEvictions        = "evictions"
)

// DrainRequester is the requester a drain names in its EvictionRequests.
const DrainRequester = "ordinal.dev/node-drain"

// requestSettle is how long a drain waits, after its pod is gone, for
// the request to report it evicted before it deletes the request anyway.
const requestSettle = 10 * time.Second

// requestPoll is how often a drain reads its requests and Evictions.
const requestPoll = time.Second

// useRequests decides, for via, whether a drain asks pods to go through
// EvictionRequests; eviction-requests where they are not served is an
// error that says how to serve them.
func useRequests(c kubernetes.Interface, via string) (bool, error) {
	switch via {
	case ViaEvictions:
		return false, nil
	case ViaAuto, "", ViaEvictionRequests:
	default:
		return false, fmt.Errorf("--via %q is not one of %s, %s, %s", via, ViaAuto, ViaEvictionRequests, ViaEvictions)
	}
	served, err := kubeclient.EvictionRequestsServed(c.Discovery())
	if err != nil {
		return false, err
	}
	if !served && via == ViaEvictionRequests {
		return false, errors.New("the API server does not serve EvictionRequests (lifecycle.k8s.io/v1alpha1, alpha in 1.37: feature gate EvictionRequestAPI and --runtime-config=lifecycle.k8s.io/v1alpha1=true; on ordinal up, --feature-gates=EvictionRequestAPI=true); --via evictions evicts as kubectl drain does")
	}
	return served, nil
}

// byRequest asks for p's eviction with an EvictionRequest and waits until
// p is gone; at the drain's timeout the request is withdrawn.
func (d *drain) byRequest(ctx context.Context, p *corev1.Pod) error {
	if err := d.request(ctx, p); namespaceTerminating(err) {
		// No request can be made in a namespace being deleted, and
		// none is needed: its deletion takes the pod.
		fmt.Fprintf(d.out, "pod %s/%s goes with its namespace, which is being deleted\n", p.Namespace, p.Name)
		return d.waitGone(ctx, p)
	} else if err != nil {
		return err
	}
	err := d.waitRequested(ctx, p)
	if err != nil && ctx.Err() != nil {
		d.withdraw(p)
	}
	return err
}

// requestName is the name of a drain's request for p: one per pod UID,
// so that a drain run again finds the request it made.
func requestName(p *corev1.Pod) string {
	uid, _, _ := strings.Cut(string(p.UID), "-")
	name := "drain-" + p.Name + "-" + uid
	if len(name) > 253 {
		name = name[:253]
	}
	return name
}

// request creates p's EvictionRequest, or asks again with one a drain
// made and withdrew.
func (d *drain) request(ctx context.Context, p *corev1.Pod) error {
	reqs := d.client.LifecycleV1alpha1().EvictionRequests(p.Namespace)
	er := &lifecyclev1alpha1.EvictionRequest{
		ObjectMeta: metav1.ObjectMeta{Name: requestName(p), Namespace: p.Namespace},
		Spec: lifecyclev1alpha1.EvictionRequestSpec{
			Target:    lifecyclev1alpha1.EvictionRequestTarget{Pod: &lifecyclev1alpha1.EvictionRequestPodReference{Name: p.Name, UID: p.UID}},
			Requester: DrainRequester, Intent: lifecyclev1alpha1.EvictionRequestIntentEviction,
		},
	}
	fmt.Fprintf(d.out, "requesting the eviction of pod %s/%s\n", p.Namespace, p.Name)
	_, err := reqs.Create(ctx, er, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return fmt.Errorf("requesting the eviction of pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		return nil
	}
	cur, err := reqs.Get(ctx, er.Name, metav1.GetOptions{})
	if err != nil || cur.Spec.Intent == lifecyclev1alpha1.EvictionRequestIntentEviction {
		return err
	}
	cur.Spec.Intent = lifecyclev1alpha1.EvictionRequestIntentEviction
	if _, err := reqs.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("asking again for the eviction of pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return nil
}

// waitRequested waits until p is gone, printing the progress its
// Eviction's active responder reports, and then deletes p's request once
// it reports the eviction; a failed request is an error.
func (d *drain) waitRequested(ctx context.Context, p *corev1.Pod) error {
	said := ""
	for {
		gone, err := d.gone(ctx, p)
		if err != nil {
			return err
		}
		if gone {
			fmt.Fprintf(d.out, "pod/%s evicted\n", p.Name)
			d.settle(ctx, p)
			return nil
		}
		if err := d.requestFailed(ctx, p); err != nil {
			return err
		}
		if msg := d.progress(ctx, p); msg != "" && msg != said {
			fmt.Fprintf(d.out, "pod %s/%s: %s\n", p.Namespace, p.Name, msg)
			said = msg
		}
		if err := sleep(ctx, requestPoll); err != nil {
			return fmt.Errorf("waiting for pod %s/%s to go: %w", p.Namespace, p.Name, err)
		}
	}
}

// gone reports whether p (by its UID) no longer exists.
func (d *drain) gone(ctx context.Context, p *corev1.Pod) (bool, error) {
	got, err := d.client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) || (err == nil && got.UID != p.UID):
		return true, nil
	case err != nil && ctx.Err() == nil:
		return false, fmt.Errorf("waiting for pod %s/%s to go: %w", p.Namespace, p.Name, err)
	}
	return false, nil
}

// requestFailed is the error of p's request when it reports Failed.
func (d *drain) requestFailed(ctx context.Context, p *corev1.Pod) error {
	er, err := d.client.LifecycleV1alpha1().EvictionRequests(p.Namespace).Get(ctx, requestName(p), metav1.GetOptions{})
	if err != nil {
		return nil // the next look tells; the pod's going is what counts
	}
	if c := meta.FindStatusCondition(er.Status.Conditions, string(lifecyclev1alpha1.EvictionConditionFailed)); c != nil && c.Status == metav1.ConditionTrue {
		return fmt.Errorf("the eviction request of pod %s/%s failed (%s): %s", p.Namespace, p.Name, c.Reason, c.Message)
	}
	return nil
}

// progress is what the active responder of p's Eviction reports, as
// "responder: message", or "".
func (d *drain) progress(ctx context.Context, p *corev1.Pod) string {
	evs, err := d.client.LifecycleV1alpha1().Evictions(p.Namespace).List(ctx, metav1.ListOptions{LabelSelector: DrainRequester})
	if err != nil {
		return ""
	}
	for _, ev := range evs.Items {
		if t := ev.Spec.Target.Pod; t == nil || t.UID != p.UID {
			continue
		}
		for _, r := range ev.Status.TargetResponders {
			if r.State != lifecyclev1alpha1.ResponderStateActive {
				continue
			}
			for _, s := range ev.Status.Responders {
				if s.Name == r.Name && s.Message != nil {
					return r.Name + ": " + *s.Message
				}
			}
			return r.Name + ": active"
		}
	}
	return ""
}

// settle waits, at most requestSettle, for p's request to report the
// eviction, then deletes it: the requester cleans up after itself.
func (d *drain) settle(ctx context.Context, p *corev1.Pod) {
	reqs := d.client.LifecycleV1alpha1().EvictionRequests(p.Namespace)
	deadline := time.Now().Add(requestSettle)
	for time.Now().Before(deadline) {
		er, err := reqs.Get(ctx, requestName(p), metav1.GetOptions{})
		if err != nil || meta.IsStatusConditionTrue(er.Status.Conditions, string(lifecyclev1alpha1.EvictionConditionTargetEvicted)) {
			break
		}
		if sleep(ctx, goneInterval) != nil {
			break
		}
	}
	if err := reqs.Delete(ctx, requestName(p), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		fmt.Fprintf(d.out, "could not delete the eviction request of pod %s/%s: %v\n", p.Namespace, p.Name, err)
	}
}

// withdraw sets p's request's intent to Withdrawn, after the drain's
// context ended, so that nothing evicts p after the drain gave up.
func (d *drain) withdraw(p *corev1.Pod) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reqs := d.client.LifecycleV1alpha1().EvictionRequests(p.Namespace)
	er, err := reqs.Get(ctx, requestName(p), metav1.GetOptions{})
	if err == nil {
		er.Spec.Intent = lifecyclev1alpha1.EvictionRequestIntentWithdrawn
		_, err = reqs.Update(ctx, er, metav1.UpdateOptions{})
	}
	if err != nil && !apierrors.IsNotFound(err) {
		fmt.Fprintf(d.out, "could not withdraw the eviction request of pod %s/%s: %v\n", p.Namespace, p.Name, err)
		return
	}
	fmt.Fprintf(d.out, "withdrew the eviction request of pod %s/%s\n", p.Namespace, p.Name)
}
