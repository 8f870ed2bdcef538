package doctor

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func controllerManagerPod(args ...string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-controller-manager-node-1", Namespace: "kube-system", Labels: map[string]string{"component": "kube-controller-manager"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "kube-controller-manager",
			Command: append([]string{"kube-controller-manager", "--leader-elect=true"}, args...)}}},
	}
}

// Where kube-controller-manager's pod is visible, its --controllers flag
// decides, by kube-controller-manager's own rule.
func TestTheControllerManagersFlagsDecide(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want Status
	}{
		{"no flag runs every default controller", nil, Fail},
		{"a star runs it", []string{"--controllers=*"}, Fail},
		{"a star without it turns it off", []string{"--controllers=*,-statefulset-controller"}, OK},
		{"the flag's value as the next argument", []string{"--controllers", "*,-statefulset-controller"}, OK},
		{"the alias turns it off too", []string{"--controllers=*,-statefulset"}, OK},
		{"a list without it and without a star", []string{"--controllers=deployment-controller,replicaset-controller"}, OK},
		{"the first entry naming it wins", []string{"--controllers=statefulset-controller,-statefulset-controller"}, Fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDoctor(t, []runtime.Object{controllerManagerPod(tc.args...)})
			got := d.checkBuiltin(context.Background(), leaseSeen{})
			if got.Status != tc.want || !strings.Contains(got.Message, "kube-system/kube-controller-manager-node-1") {
				t.Errorf("got %s %q, want %s naming the pod", got.Status, got.Message, tc.want)
			}
		})
	}
}

func builtinEvent(name string, when time.Duration) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: "shop"},
		InvolvedObject: corev1.ObjectReference{Kind: "StatefulSet", Namespace: "shop", Name: "db"},
		Reason:         "SuccessfulCreate", Source: corev1.EventSource{Component: "statefulset-controller"},
		FirstTimestamp: ago(when), LastTimestamp: ago(when),
	}
}

func statusWrittenBy(manager string, when time.Duration) *metav1.PartialObjectMetadata {
	t := ago(when)
	return &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop", ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, Time: &t},
			{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", Time: &t},
		}},
	}
}

// Without a visible controller-manager pod, what the built-in controller
// leaves behind when it acts is the evidence: its events and its status
// writes, counted only after Ordinal took its Lease or within --since.
func TestWhatTheBuiltinControllerLeavesBehindFailsTheCheck(t *testing.T) {
	ordinalEvent := builtinEvent("ordinal", time.Minute)
	ordinalEvent.Source.Component = OrdinalEventSource
	for _, tc := range []struct {
		name        string
		objs        []runtime.Object
		set         *metav1.PartialObjectMetadata
		wantStatus  Status
		wantMessage string
	}{
		{"an event a minute ago", []runtime.Object{builtinEvent("e", time.Minute)}, nil, Fail,
			"running: statefulset-controller wrote event SuccessfulCreate on StatefulSet shop/db 1m ago (in the last 1h)"},
		{"a status write a minute ago", nil, statusWrittenBy("kube-controller-manager", time.Minute), Fail,
			"running: kube-controller-manager wrote the status of StatefulSet shop/db 1m ago (in the last 1h)"},
		{"an event two hours ago", []runtime.Object{builtinEvent("e", 2*time.Hour)}, statusWrittenBy("kube-controller-manager", 3*time.Hour), Warn,
			"no sign of it in the last 1h (no events from statefulset-controller, no status written by another controller), but kube-controller-manager's flags are not visible here"},
		{"only Ordinal's traces", []runtime.Object{ordinalEvent}, statusWrittenBy("ordinal-controller", time.Minute), Warn, "no sign of it in the last 1h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sets []*metav1.PartialObjectMetadata
			if tc.set != nil {
				sets = append(sets, tc.set)
			}
			d, _ := fakeDoctor(t, tc.objs, sets...)
			got := d.checkBuiltin(context.Background(), leaseSeen{})
			if got.Status != tc.wantStatus || !strings.HasPrefix(got.Message, tc.wantMessage) {
				t.Errorf("got %s %q\nwant %s %q…", got.Status, got.Message, tc.wantStatus, tc.wantMessage)
			}
		})
	}
}

// Once Ordinal holds the Lease, only what happened since it took it counts:
// the built-in controller's events from before are history.
func TestEvidenceFromBeforeOrdinalTookTheLeaseDoesNotCount(t *testing.T) {
	d, _ := fakeDoctor(t, []runtime.Object{builtinEvent("before", 10*time.Minute)})
	lease := heldLease("ordinal-system", "pod_1", 5*time.Minute)
	got := d.checkBuiltin(context.Background(), leaseSeen{renewed: lease})
	if got.Status != Warn || !strings.HasPrefix(got.Message, "no sign of it since Ordinal took the Lease 5m ago") {
		t.Errorf("got %s %q", got.Status, got.Message)
	}
	d, _ = fakeDoctor(t, []runtime.Object{builtinEvent("after", time.Minute)})
	if got := d.checkBuiltin(context.Background(), leaseSeen{renewed: lease}); got.Status != Fail || !strings.HasSuffix(got.Message, "(since Ordinal took the Lease 5m ago)") {
		t.Errorf("got %s %q", got.Status, got.Message)
	}
	// An event carries whole seconds: one from the second the Lease was
	// taken in (11:55:00.6) reads 11:55:00, and counts.
	sameSecond := heldLease("ordinal-system", "pod_1", 5*time.Minute-600*time.Millisecond)
	d, _ = fakeDoctor(t, []runtime.Object{builtinEvent("same second", 5*time.Minute)})
	if got := d.checkBuiltin(context.Background(), leaseSeen{renewed: sameSecond}); got.Status != Fail {
		t.Errorf("an event of the Lease's second: got %s %q, want it counted", got.Status, got.Message)
	}
}

// When Ordinal leaves apps/v1 sets to the built-in controller, the
// built-in controller running is as it must be: the check informs, and
// fails only when the flags show it off, which leaves apps/v1 sets with no
// controller at all.
func TestBesideAnOrdinalThatLeavesAppsV1SetsTheBuiltinControllerIsExpected(t *testing.T) {
	beside := leaseSeen{renewed: heldLease("ordinal-system", "pod_1", 5*time.Minute), extendedOnly: true}
	for _, tc := range []struct {
		name        string
		objs        []runtime.Object
		wantStatus  Status
		wantMessage string
	}{
		{"its flags leave it on", []runtime.Object{controllerManagerPod()}, Info,
			"running, as it must here: kube-system/kube-controller-manager-node-1 runs with --controllers=*; " + extendedOnlyNote},
		{"its flags turn it off", []runtime.Object{controllerManagerPod("--controllers=*,-statefulset-controller")}, Fail,
			"off: kube-system/kube-controller-manager-node-1 runs with --controllers=*,-statefulset-controller, and Ordinal runs with --manage-apps-v1=false, " +
				"so no controller manages apps/v1 StatefulSets: run Ordinal with --manage-apps-v1=true (the chart's manageAppsV1), or turn the built-in controller back on"},
		{"its events", []runtime.Object{builtinEvent("e", time.Minute)}, Info,
			"running, as it must here: statefulset-controller wrote event SuccessfulCreate on StatefulSet shop/db 1m ago (since Ordinal took the Lease 5m ago); " + extendedOnlyNote},
		{"no trace and no flags", nil, Info,
			"no sign of it since Ordinal took the Lease 5m ago (no events from statefulset-controller, no status written by another controller), " +
				"and kube-controller-manager's flags are not visible here; " + extendedOnlyNote},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDoctor(t, tc.objs)
			got := d.checkBuiltin(context.Background(), beside)
			if got.Status != tc.wantStatus || got.Message != tc.wantMessage {
				t.Errorf("got %s %q\nwant %s %q", got.Status, got.Message, tc.wantStatus, tc.wantMessage)
			}
		})
	}
}
