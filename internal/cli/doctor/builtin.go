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
// no evidence either way, which is a warning, not a pass.
func (d *Doctor) checkBuiltin(ctx context.Context, lease *coordinationv1.Lease) Result {
	flags, ferr := d.controllerManagerFlags(ctx)
	if ferr == nil && flags != nil {
		return flags.result()
	}
	since, sinceText := d.evidenceWindow(lease)
	event, eerr := d.lastEvent(ctx, builtinEventSource, since)
	write, werr := d.lastBuiltinStatusWrite(ctx, since)
	var signs []string
	if event != nil {
		signs = append(signs, builtinEventSource+" wrote "+describeEvent(event, d.now()))
	}
	if write != "" {
		signs = append(signs, write)
	}
	switch {
	case len(signs) > 0:
		return Result{Check: checkBuiltinName, Status: Fail, Message: "running: " + strings.Join(signs, "; ") + " (" + sinceText + ")"}
	case eerr != nil:
		return couldNot(checkBuiltinName, "reading events", eerr)
	case werr != nil:
		return couldNot(checkBuiltinName, "reading StatefulSets", werr)
	}
	hidden := "kube-controller-manager's flags are not visible here"
	if ferr != nil {
		hidden = "kube-controller-manager's pods cannot be read (" + forbiddenReason(ferr) + ")"
	}
	return Result{Check: checkBuiltinName, Status: Warn, Message: fmt.Sprintf(
		"no sign of it %s (no events from %s, no status written by another controller), but %s: confirm it runs with --controllers=*,-statefulset-controller",
		sinceText, builtinEventSource, hidden)}
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
