package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

const checkOrdinalName = "Ordinal controller"

// defaultLeaseDuration is the controller's lease duration (15 s), for a
// Lease that does not say.
const defaultLeaseDuration = 15 * time.Second

// leaseSeen is what the Ordinal check learnt about the controller's Lease,
// for the checks after it.
type leaseSeen struct {
	// renewed is the Lease when a renewal was seen, else nil.
	renewed *coordinationv1.Lease
	// namespace and name are the Lease found, renewed or not.
	namespace, name string
	// extendedOnly is true when the Lease's holder manages only the
	// extended kind (--manage-apps-v1=false), beside the built-in
	// controller: the renewed Lease's, or the last holder of the Lease
	// found, so that with Ordinal down the built-in controller still
	// counts as expected.
	extendedOnly bool
}

// checkOrdinal finds Ordinal's Lease and watches it for a renewal: a
// renewal seen is proof that a replica runs, whatever the clocks of this
// machine and the cluster say.
func (d *Doctor) checkOrdinal(ctx context.Context) (leaseSeen, Result) {
	leases, where, err := d.findLeases(ctx)
	if err != nil {
		return leaseSeen{}, couldNot(checkOrdinalName, "reading Leases "+where, err)
	}
	if len(leases) == 0 {
		return leaseSeen{}, d.withoutLease(ctx, where)
	}
	seen := leaseSeen{namespace: leases[0].Namespace, name: leases[0].Name, extendedOnly: extendedOnly(&leases[0])}
	var stale []string
	for i := range leases {
		renewed, err := d.watchRenewal(ctx, &leases[i])
		if err != nil {
			return seen, couldNot(checkOrdinalName, "reading Lease "+key(&leases[i]), err)
		}
		if renewed != nil {
			return running(renewed)
		}
		stale = append(stale, d.describeStale(&leases[i]))
	}
	return seen, Result{Check: checkOrdinalName, Status: Fail, Message: "not running: " + strings.Join(stale, "; ")}
}

// running is the check's answer for a Lease seen renewed, saying which
// StatefulSets its holder manages when not all.
func running(l *coordinationv1.Lease) (leaseSeen, Result) {
	seen := leaseSeen{renewed: l, namespace: l.Namespace, name: l.Name, extendedOnly: extendedOnly(l)}
	msg := fmt.Sprintf("running: Lease %s held by %s and renewed while watching", key(l), holder(l))
	if seen.extendedOnly {
		msg += fmt.Sprintf("; it manages only %s StatefulSets (--manage-apps-v1=false), the built-in controller apps/v1 ones", extendedGroup)
	}
	return seen, Result{Check: checkOrdinalName, Status: OK, Message: msg}
}

// findLeases returns the Lease of --lease, or every Lease named
// DefaultLeaseName, and says where it looked.
func (d *Doctor) findLeases(ctx context.Context) ([]coordinationv1.Lease, string, error) {
	if d.opts.Lease != "" {
		ns, name, _ := splitName(d.opts.Lease)
		l, err := d.client.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, d.opts.Lease, nil
		}
		if err != nil {
			return nil, d.opts.Lease, err
		}
		return []coordinationv1.Lease{*l}, d.opts.Lease, nil
	}
	where := "named " + DefaultLeaseName + " in any namespace"
	list, err := d.client.CoordinationV1().Leases(metav1.NamespaceAll).List(ctx,
		metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", DefaultLeaseName).String()})
	if err != nil {
		return nil, where, err
	}
	var named []coordinationv1.Lease
	for _, l := range list.Items {
		if l.Name == DefaultLeaseName { // as the field selector asked
			named = append(named, l)
		}
	}
	return named, where, nil
}

// watchRenewal reads the Lease until its renewTime changes or a lease
// duration and two polls have passed; it returns the renewed Lease, or nil.
func (d *Doctor) watchRenewal(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if holder(l) == "" {
		return nil, nil
	}
	deadline := time.Now().Add(leaseDuration(l) + 2*d.poll)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d.poll):
		}
		now, err := d.client.CoordinationV1().Leases(l.Namespace).Get(ctx, l.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if holder(now) != "" && !renewTime(now).Equal(renewTime(l)) {
			return now, nil
		}
	}
	return nil, nil
}

// withoutLease looks for a controller that runs without leader election:
// its recent events are the only sign it leaves.
func (d *Doctor) withoutLease(ctx context.Context, where string) Result {
	since := d.now().Add(-d.opts.Since)
	last, err := d.lastEvent(ctx, OrdinalEventSource, since)
	if err != nil {
		return couldNot(checkOrdinalName, "reading events", err)
	}
	if last != nil {
		return Result{Check: checkOrdinalName, Status: OK, Message: fmt.Sprintf(
			"running without leader election: no Lease %s, but %s wrote %s", where, OrdinalEventSource, describeEvent(last, d.now()))}
	}
	return Result{Check: checkOrdinalName, Status: Fail, Message: fmt.Sprintf(
		"not running: no Lease %s and no events from %s in the last %s", where, OrdinalEventSource, short(d.opts.Since))}
}

func (d *Doctor) describeStale(l *coordinationv1.Lease) string {
	if holder(l) == "" {
		return fmt.Sprintf("Lease %s has no holder", key(l))
	}
	return fmt.Sprintf("Lease %s held by %s was not renewed for %s (last renewal %s)",
		key(l), holder(l), short(leaseDuration(l)+2*d.poll), renewTime(l).UTC().Format(time.RFC3339))
}

func key(l *coordinationv1.Lease) string { return l.Namespace + "/" + l.Name }

func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func renewTime(l *coordinationv1.Lease) time.Time {
	if l.Spec.RenewTime == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Time
}

func leaseDuration(l *coordinationv1.Lease) time.Duration {
	if l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds <= 0 {
		return defaultLeaseDuration
	}
	return time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
}

// acquired is when the Lease's holder took it, the moment Ordinal took over.
func acquired(l *coordinationv1.Lease) time.Time {
	if l == nil || l.Spec.AcquireTime == nil {
		return time.Time{}
	}
	return l.Spec.AcquireTime.Time
}
