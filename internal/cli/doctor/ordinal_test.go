package doctor

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// heldLease is Ordinal's Lease in ns, held by holder since acquiredAgo,
// last renewed at testNow, with a one-second lease duration.
func heldLease(ns, holder string, acquiredAgo time.Duration) *coordinationv1.Lease {
	acquire, renew := metav1.NewMicroTime(testNow.Add(-acquiredAgo)), metav1.NewMicroTime(testNow)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: DefaultLeaseName, Namespace: ns},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: new(int32(1)),
			AcquireTime: &acquire, RenewTime: &renew},
	}
}

// renewOnRead makes every read of a Lease return it renewed a little later,
// as a running holder would, changed by each of change.
func renewOnRead(client *k8stesting.Fake, change ...func(*coordinationv1.Lease)) {
	n := 0
	client.PrependReactor("get", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		get := a.(k8stesting.GetAction)
		n++
		l := heldLease(get.GetNamespace(), "pod_1", time.Minute)
		renewed := metav1.NewMicroTime(testNow.Add(time.Duration(n) * time.Second))
		l.Spec.RenewTime = &renewed
		for _, c := range change {
			c(l)
		}
		return true, l, nil
	})
}

func TestOrdinalRunsOnlyIfItsLeaseIsRenewedWhileWatched(t *testing.T) {
	released := heldLease("ordinal-system", "", time.Minute)
	for _, tc := range []struct {
		name        string
		objs        []runtime.Object
		renewing    bool
		want        Status
		wantMessage string
	}{
		{"a Lease being renewed", []runtime.Object{heldLease("ordinal-system", "pod_1", time.Minute)}, true, OK,
			"running: Lease ordinal-system/ordinal-statefulset-controller held by pod_1 and renewed while watching"},
		{"a Lease nobody renews", []runtime.Object{heldLease("ordinal-system", "pod_1", time.Minute)}, false, Fail,
			"not running: Lease ordinal-system/ordinal-statefulset-controller held by pod_1 was not renewed for 1.01s (last renewal 2026-11-23T12:00:00Z)"},
		{"a released Lease", []runtime.Object{released}, false, Fail,
			"not running: Lease ordinal-system/ordinal-statefulset-controller has no holder"},
		{"no Lease and no events", nil, false, Fail,
			"not running: no Lease named ordinal-statefulset-controller in any namespace and no events from ordinal-statefulset-controller in the last 1h"},
		{"no Lease but recent events", []runtime.Object{ordinalEvent(2 * time.Minute)}, false, OK,
			"running without leader election: no Lease named ordinal-statefulset-controller in any namespace, but ordinal-statefulset-controller wrote event SuccessfulCreate on StatefulSet shop/db 2m ago"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, client := fakeDoctor(t, tc.objs)
			if tc.renewing {
				renewOnRead(&client.Fake)
			}
			seen, got := d.checkOrdinal(context.Background())
			if got.Status != tc.want || got.Message != tc.wantMessage {
				t.Errorf("got %s %q\nwant %s %q", got.Status, got.Message, tc.want, tc.wantMessage)
			}
			if (seen.renewed != nil) != (tc.want == OK && tc.renewing) {
				t.Errorf("renewed Lease %v", seen.renewed)
			}
		})
	}
}

func ordinalEvent(when time.Duration) *corev1.Event {
	e := builtinEvent("ordinal", when)
	e.Source.Component = OrdinalEventSource
	return e
}

// --lease names the Lease to watch; a Lease of another name elsewhere is
// not Ordinal's.
func TestTheLeaseFlagNamesTheLease(t *testing.T) {
	other := heldLease("kube-system", "pod_1", time.Minute)
	other.Name = "kube-controller-manager"
	d, _ := fakeDoctor(t, []runtime.Object{other})
	d.opts.Lease = "team-a/ordinal"
	_, got := d.checkOrdinal(context.Background())
	if got.Status != Fail || !strings.Contains(got.Message, "no Lease team-a/ordinal") {
		t.Errorf("got %s %q", got.Status, got.Message)
	}
	d.opts.Lease = ""
	if _, got := d.checkOrdinal(context.Background()); got.Status != Fail || !strings.Contains(got.Message, "no Lease named ordinal-statefulset-controller") {
		t.Errorf("a Lease named kube-controller-manager was taken for Ordinal's: %s %q", got.Status, got.Message)
	}
}

// The leader's label on its Lease says whether it leaves apps/v1 sets to
// the built-in controller; the check says so, and the checks after it read
// it from what the check saw.
func TestTheLeaseLabelSaysWhetherOrdinalManagesAppsV1Sets(t *testing.T) {
	for _, tc := range []struct {
		label            string
		wantExtendedOnly bool
		wantSuffix       string
	}{
		{"false", true, "renewed while watching; it manages only apps.ordinal.dev StatefulSets (--manage-apps-v1=false), the built-in controller apps/v1 ones"},
		{"true", false, "renewed while watching"},
		{"", false, "renewed while watching"},
	} {
		t.Run("label "+tc.label, func(t *testing.T) {
			d, client := fakeDoctor(t, []runtime.Object{heldLease("ordinal-system", "pod_1", time.Minute)})
			renewOnRead(&client.Fake, func(l *coordinationv1.Lease) {
				if tc.label != "" {
					l.Labels = map[string]string{v1alpha1.LeaseLabelManageAppsV1: tc.label}
				}
			})
			seen, got := d.checkOrdinal(context.Background())
			if got.Status != OK || !strings.HasSuffix(got.Message, tc.wantSuffix) || seen.extendedOnly != tc.wantExtendedOnly {
				t.Errorf("got %s %q, extendedOnly %v\nwant ok …%q, extendedOnly %v", got.Status, got.Message, seen.extendedOnly, tc.wantSuffix, tc.wantExtendedOnly)
			}
		})
	}
}

// A Lease nobody renews still says how its last holder ran: with Ordinal
// down on a cluster where it manages only the extended kind, the built-in
// controller running is still as expected.
func TestAStaleLeaseStillSaysOrdinalLeavesAppsV1Sets(t *testing.T) {
	stale := heldLease("ordinal-system", "pod_1", time.Minute)
	stale.Labels = map[string]string{v1alpha1.LeaseLabelManageAppsV1: "false"}
	d, _ := fakeDoctor(t, []runtime.Object{stale})
	seen, got := d.checkOrdinal(context.Background())
	if got.Status != Fail || !seen.extendedOnly || seen.renewed != nil {
		t.Errorf("got %s %q, extendedOnly %v, renewed %v; want FAIL, extendedOnly true, no renewal", got.Status, got.Message, seen.extendedOnly, seen.renewed)
	}
}
