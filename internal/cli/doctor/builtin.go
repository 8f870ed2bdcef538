package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const checkBuiltinName = "built-in controller"

var statefulSets = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}

// checkBuiltin looks for the built-in StatefulSet controller: first in
// kube-controller-manager's flags, decisive where its pod is visible (kubeadm
// and similar clusters), then for what it leaves behind when it acts —
// events from statefulset-controller, status written by a field manager
// that is not Ordinal's — since Ordinal took its Lease (or in the last
// --since). A quiet cluster without a visible controller-manager pod leaves
// no evidence either way, which is a warning, not a pass. When Ordinal
// leaves apps/v1 sets to the built-in controller, it is expected to run:
// the check only informs (see alongside).
func (d *Doctor) checkBuiltin(ctx context.Context, lease leaseSeen) Result {
	flags, ferr := d.controllerManagerFlags(ctx)
	if ferr == nil && flags != nil {
		if lease.extendedOnly {
			return flags.alongside()
		}
		return flags.result()
	}
	tr := d.builtinTraces(ctx, lease.renewed, ferr)
	switch {
	case lease.extendedOnly:
		return tr.alongside()
	case len(tr.signs) > 0:
		return Result{Check: checkBuiltinName, Status: Fail, Message: "running: " + strings.Join(tr.signs, "; ") + " (" + tr.window + ")"}
	case tr.unknown != nil:
		return *tr.unknown
	}
	return Result{Check: checkBuiltinName, Status: Warn, Message: fmt.Sprintf(
		"%s, but %s: confirm it runs with --controllers=*,-statefulset-controller", tr.none(), tr.hidden)}
}

// traces is what the built-in controller left behind in the evidence
// window, when kube-controller-manager's flags could not be read.
type traces struct {
	// signs describe its events and status writes, newest of each.
	signs []string
	// window says since when they count.
	window string
	// unknown is the result of a read that failed, nil when all worked.
	unknown *Result
	// hidden says why kube-controller-manager's flags were not read.
	hidden string
}

func (d *Doctor) builtinTraces(ctx context.Context, lease *coordinationv1.Lease, flagsErr error) traces {
	since, window := d.evidenceWindow(lease)
	// Events and managed fields carry whole seconds: a trace from the
	// second the Lease was taken in counts.
	since = since.Truncate(time.Second).Add(-time.Nanosecond)
	tr := traces{window: window, hidden: "kube-controller-manager's flags are not visible here"}
	if flagsErr != nil {
		tr.hidden = "kube-controller-manager's pods cannot be read (" + forbiddenReason(flagsErr) + ")"
	}
	event, eerr := d.lastEvent(ctx, builtinEventSource, since)
	write, werr := d.lastBuiltinStatusWrite(ctx, since)
	if event != nil {
		tr.signs = append(tr.signs, builtinEventSource+" wrote "+describeEvent(event, d.now()))
	}
	if write != "" {
		tr.signs = append(tr.signs, write)
	}
	switch {
	case eerr != nil:
		r := couldNot(checkBuiltinName, "reading events", eerr)
		tr.unknown = &r
	case werr != nil:
		r := couldNot(checkBuiltinName, "reading StatefulSets", werr)
		tr.unknown = &r
	}
	return tr
}

// none says that no trace was found.
func (tr traces) none() string {
	return fmt.Sprintf("no sign of it %s (no events from %s, no status written by another controller)", tr.window, builtinEventSource)
}

// evidenceWindow is the time after which a sign of the built-in controller
// means it still runs: when Ordinal took its Lease, if that is within
// --since, else --since ago.
func (d *Doctor) evidenceWindow(lease *coordinationv1.Lease) (time.Time, string) {
	since := d.now().Add(-d.opts.Since)
	if t := acquired(lease); t.After(since) {
		return t, fmt.Sprintf("since Ordinal took the Lease %s ago", age(d.now(), t))
	}
	return since, "in the last " + short(d.opts.Since)
}

// lastBuiltinStatusWrite describes the newest status write to any
// StatefulSet after since by a field manager that is not Ordinal's, from
// the sets' managed fields; empty if there is none. The manager is named
// after the writer's program: kube-controller-manager, or the binary that
// embeds it (k3s, or ordinal up's own process when it runs the built-in
// controller); Ordinal's are named ordinal….
func (d *Doctor) lastBuiltinStatusWrite(ctx context.Context, since time.Time) (string, error) {
	list, err := d.meta.Resource(statefulSets).Namespace(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	var last time.Time
	var what string
	for _, set := range list.Items {
		for _, mf := range set.ManagedFields {
			if strings.HasPrefix(mf.Manager, ordinalFieldManagerPrefix) || mf.Subresource != "status" || mf.Time == nil {
				continue
			}
			if t := mf.Time.Time; t.After(since) && t.After(last) {
				last, what = t, fmt.Sprintf("%s wrote the status of StatefulSet %s/%s %s ago", mf.Manager, set.Namespace, set.Name, age(d.now(), t))
			}
		}
	}
	return what, nil
}

// controllerManagerFlags reads --controllers from kube-controller-manager's
// pods in kube-system; nil when none is visible.
func (d *Doctor) controllerManagerFlags(ctx context.Context) (*kcmFlags, error) {
	pods, err := d.client.CoreV1().Pods(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var found *kcmFlags
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Labels["component"] != "kube-controller-manager" && !strings.HasPrefix(p.Name, "kube-controller-manager") {
			continue
		}
		f := kcmFlags{pod: p.Name, controllers: controllersFlag(p)}
		if found == nil || f.on() {
			found = &f
		}
	}
	return found, nil
}

// kcmFlags is one kube-controller-manager pod's --controllers value.
type kcmFlags struct {
	pod         string
	controllers string
}

// result is the check's answer from the flags when Ordinal manages
// apps/v1 sets: the built-in controller must be off.
func (f kcmFlags) result() Result {
	flag := "--controllers=" + f.controllers
	if f.on() {
		return Result{Check: checkBuiltinName, Status: Fail, Message: fmt.Sprintf(
			"running: kube-system/%s runs with %s; it needs --controllers=*,-statefulset-controller", f.pod, flag)}
	}
	return Result{Check: checkBuiltinName, Status: OK, Message: fmt.Sprintf("off: kube-system/%s runs with %s", f.pod, flag)}
}

// on applies kube-controller-manager's rule: the first entry naming the
// controller (or its alias) decides, else "*" turns on every controller
// that is on by default, as this one is.
func (f kcmFlags) on() bool {
	star := false
	for _, c := range strings.Split(f.controllers, ",") {
		switch strings.TrimSpace(c) {
		case "statefulset-controller", "statefulset":
			return true
		case "-statefulset-controller", "-statefulset":
			return false
		case "*":
			star = true
		}
	}
	return star
}

// controllersFlag is the pod's --controllers value; "*" (the default) when
// no container passes one.
func controllersFlag(p *corev1.Pod) string {
	if v, ok := flagValue(p, "controllers"); ok {
		return v
	}
	return "*"
}
