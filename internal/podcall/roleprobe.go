package podcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Events of the role probe, recorded on the set.
const (
	// EventRoleChanged is the Normal event of a role label the probe set,
	// changed or removed on the pod's answer.
	EventRoleChanged = "RoleChanged"
	// EventRoleProbeFailed is the Warning event of a role label removed
	// after failureThreshold failed probes in a row.
	EventRoleProbeFailed = "RoleProbeFailed"
)

// roleProbeConcurrency is how many pods of one set are asked at once.
const roleProbeConcurrency = 16

// roleAnswerLimit is how much of an answer's body is read: a label value
// is at most 63 bytes, and white space around it is allowed.
const roleAnswerLimit = 1 << 10

// roleProber asks the pods of each extended set with spec.roles.roleProbe
// for their role, and writes the answer to the role label: one loop per
// set, started by the set's sync and ended by itself once the set is gone
// or no longer asks for probes. The loop reads the set and its pods from
// the controller's caches at every round, so a change of the probe takes
// effect at the next round. The calls go through the hook address policy
// (hooknet.go), never through a proxy, with no credentials.
type roleProber struct {
	client   kubernetes.Interface
	net      *hookNet
	recorder record.EventRecorder
	// limits bound the calls and writes of every set's loop together.
	limits *probeLimits
	// set reads an extended set from the cache by its key.
	set func(key string) (*v1alpha1.StatefulSet, bool)
	// pods are the cached pods a set (by UID) controls.
	pods func(types.UID) []Pod
	now  func() time.Time

	mu    sync.Mutex
	loops map[string]*probeLoop
}

// probeLoop is one set's loop; its fields are its goroutine's alone.
type probeLoop struct {
	// failures are the failed probes in a row of each pod by UID.
	failures map[types.UID]int32
	// writesUntil ends the wait of this round's writes for tokens: one
	// period after the answers came, a write is left to the next round,
	// so that no label is written from an answer older than that.
	writesUntil time.Time
}

// probeOutcome is one pod's answer: its role ("" for none) or why the
// probe failed.
type probeOutcome struct {
	pod  Pod
	role string
	err  error
}

// ensure starts the loop of set unless it runs or the set asks for no
// probes. ctx ends every loop.
func (p *roleProber) ensure(ctx context.Context, key string, set *v1alpha1.StatefulSet) {
	if roleProbeOf(set) == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.loops[key]; ok {
		return
	}
	if p.loops == nil {
		p.loops = map[string]*probeLoop{}
	}
	loop := &probeLoop{failures: map[types.UID]int32{}}
	p.loops[key] = loop
	go p.run(ctx, key, loop)
}

// running reports whether a loop runs for key.
func (p *roleProber) running(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.loops[key]
	return ok
}

func roleProbeOf(set *v1alpha1.StatefulSet) *v1alpha1.RoleProbe {
	if set == nil || set.Spec.Roles == nil {
		return nil
	}
	return set.Spec.Roles.RoleProbe
}

// run probes every period until ctx ends or the set no longer asks.
func (p *roleProber) run(ctx context.Context, key string, loop *probeLoop) {
	for {
		set := p.current(ctx, key)
		if set == nil {
			return
		}
		p.round(ctx, set, loop)
		t := time.NewTimer(osts.RoleProbe(roleProbeOf(set)).Period)
		select {
		case <-ctx.Done():
			t.Stop()
			p.mu.Lock()
			delete(p.loops, key)
			p.mu.Unlock()
			return
		case <-t.C:
		}
	}
}

// current is the set of key as the cache has it, or nil, with the loop
// forgotten, when it is gone, asks for no probes or ctx ended. It decides
// under the lock ensure takes, so a set that asks again starts a new loop.
func (p *roleProber) current(ctx context.Context, key string) *v1alpha1.StatefulSet {
	p.mu.Lock()
	defer p.mu.Unlock()
	set, ok := p.set(key)
	if !ok || roleProbeOf(set) == nil || ctx.Err() != nil {
		delete(p.loops, key)
		return nil
	}
	return set
}

// round asks every running pod of set with an address, at most
// roleProbeConcurrency at once and within the calls every set shares,
// then settles each answer.
func (p *roleProber) round(ctx context.Context, set *v1alpha1.StatefulSet, loop *probeLoop) {
	probe := osts.RoleProbe(roleProbeOf(set))
	var asked []probeOutcome
	for _, r := range p.pods(set.UID) {
		if r.Phase == corev1.PodRunning && r.IP != "" {
			asked = append(asked, probeOutcome{pod: r})
		}
	}
	slots := make(chan struct{}, roleProbeConcurrency)
	var wg sync.WaitGroup
	for i := range asked {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			release, ok := p.limits.call(ctx)
			if !ok {
				asked[i].err = ctx.Err()
				return
			}
			defer release()
			asked[i].role, asked[i].err = p.ask(ctx, asked[i].pod.IP, probe)
			if asked[i].err == nil {
				asked[i].err = listedRole(set, asked[i].role)
			}
		}()
	}
	wg.Wait()
	loop.writesUntil = time.Now().Add(probe.Period) // the write bucket keeps wall time
	seen := make(map[types.UID]bool, len(asked))
	for _, o := range asked {
		seen[o.pod.UID] = true
		p.settle(ctx, set, probe, loop, o)
	}
	for uid := range loop.failures {
		if !seen[uid] {
			delete(loop.failures, uid)
		}
	}
}

// ask sends one probe: the role the pod answers, "" for none, or a
// *hookFailure.
func (p *roleProber) ask(ctx context.Context, ip string, probe *planner.RoleProbe) (string, error) {
	timeout := probe.Timeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	url := "http://" + net.JoinHostPort(ip, strconv.Itoa(int(probe.Port))) + probe.Path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", hookFailed("invalid URL", err)
	}
	req.Header.Set("User-Agent", "ordinal-role-probe")
	client, err := p.net.client(hookTarget{url: url})
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", classify(ctx, err, timeout)
	}
	defer func() { _ = resp.Body.Close() }()
	if err := roleAnswered(resp); err != nil {
		return "", err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, roleAnswerLimit+1))
	if err != nil {
		return "", classify(ctx, err, timeout)
	}
	if len(body) > roleAnswerLimit {
		return "", hookFailed(fmt.Sprintf("answer longer than %d bytes", roleAnswerLimit), nil)
	}
	role := strings.TrimSpace(string(body))
	if role != "" && len(validation.IsValidLabelValue(role)) > 0 {
		return "", hookFailed("answer is not a label value", nil)
	}
	return role, nil
}

// roleAnswered accepts HTTP 200 alone: another 2xx (204 No Content, 202
// Accepted) says nothing about a role.
func roleAnswered(resp *http.Response) error {
	if c := resp.StatusCode; c != http.StatusOK && c >= 200 && c <= 299 {
		return hookFailed(fmt.Sprintf("HTTP %d: only 200 is an answer", c), nil)
	}
	return answered(resp)
}

// listedRole accepts no role and the roles spec.roles.values lists: a
// label of another value would give the pod a role the set does not have,
// so such an answer is a failed probe.
func listedRole(set *v1alpha1.StatefulSet, role string) error {
	if role == "" {
		return nil
	}
	names := make([]string, len(set.Spec.Roles.Values))
	for i, v := range set.Spec.Roles.Values {
		if v.Name == role {
			return nil
		}
		names[i] = v.Name
	}
	return hookFailed(fmt.Sprintf("answer %q is not one of spec.roles.values (%s)", role, strings.Join(names, ", ")), nil)
}

// settle writes what one outcome changes: on an answer, the label (set,
// changed or removed) and the end of a failure run; on a failure, the
// annotation at the first of a run and, at failureThreshold, the label's
// removal. Nothing is written when nothing changes.
func (p *roleProber) settle(ctx context.Context, set *v1alpha1.StatefulSet, probe *planner.RoleProbe, loop *probeLoop, o probeOutcome) {
	labelKey, pod := set.Spec.Roles.LabelKey, o.pod
	held, has := pod.Labels[labelKey]
	note := pod.Annotations[v1alpha1.RoleProbeAnnotation]
	labelPatch, annotationPatch := map[string]any{}, map[string]any{}
	var event func()
	if o.err == nil {
		delete(loop.failures, pod.UID)
		switch {
		case o.role == "" && has:
			labelPatch[labelKey] = nil
			event = func() {
				p.event(set, corev1.EventTypeNormal, EventRoleChanged, "Pod %s answers no role; label %s=%s removed", pod.Name, labelKey, held)
			}
		case o.role != "" && (!has || held != o.role):
			labelPatch[labelKey] = o.role
			was := "none"
			if has {
				was = held
			}
			event = func() {
				p.event(set, corev1.EventTypeNormal, EventRoleChanged, "Pod %s answers role %s (was %s)", pod.Name, o.role, was)
			}
		}
		if note != "" {
			annotationPatch[v1alpha1.RoleProbeAnnotation] = nil
		}
	} else {
		reason := "probe failed"
		var f *hookFailure
		if errors.As(o.err, &f) {
			reason = f.Reason
		}
		n := loop.failures[pod.UID] + 1
		loop.failures[pod.UID] = n
		var run v1alpha1.RoleProbeFailure
		if note == "" || json.Unmarshal([]byte(note), &run) != nil {
			run = v1alpha1.RoleProbeFailure{Since: p.now().UTC().Format(time.RFC3339), Reason: reason}
		}
		if n >= probe.FailureThreshold && has {
			labelPatch[labelKey] = nil
			run.Cleared = true
			event = func() {
				p.event(set, corev1.EventTypeWarning, EventRoleProbeFailed, "Pod %s: role probe failed %d times in a row (%s); label %s=%s removed",
					pod.Name, n, reason, labelKey, held)
			}
		}
		if text, err := json.Marshal(run); err == nil && string(text) != note {
			annotationPatch[v1alpha1.RoleProbeAnnotation] = string(text)
		}
		klog.FromContext(ctx).V(2).Info("Role probe failed", "statefulset", klog.KObj(set), "pod", pod.Name, "failures", n, "reason", reason)
	}
	if len(labelPatch) == 0 && len(annotationPatch) == 0 {
		return
	}
	meta := map[string]any{"uid": pod.UID}
	if len(labelPatch) > 0 {
		meta["labels"] = labelPatch
	}
	if len(annotationPatch) > 0 {
		meta["annotations"] = annotationPatch
	}
	if !p.limits.admit(ctx, writesOf(event), loop.writesUntil) {
		klog.FromContext(ctx).V(2).Info("Role probe write left to the next round by the write limit", "statefulset", klog.KObj(set), "pod", pod.Name)
		return
	}
	patch, _ := json.Marshal(map[string]any{"metadata": meta})
	_, err := p.client.CoreV1().Pods(pod.Namespace).Patch(context.WithoutCancel(ctx), pod.Name, types.StrategicMergePatchType, patch,
		metav1.PatchOptions{FieldManager: v1alpha1.RoleProbeFieldManager})
	switch {
	case err == nil:
		if event != nil {
			event()
		}
	case apierrors.IsNotFound(err), apierrors.IsConflict(err), apierrors.IsInvalid(err):
		// The pod is gone or was replaced (the patch names its UID):
		// the next round asks the pod that is there.
	default:
		klog.FromContext(ctx).Error(err, "Writing a pod's role", "statefulset", klog.KObj(set), "pod", pod.Name)
	}
}

// writesOf is how many write tokens a patch takes: one, and one more for
// the event that goes with it.
func writesOf(event func()) int {
	if event != nil {
		return 2
	}
	return 1
}

// event records an event on the set.
func (p *roleProber) event(set *v1alpha1.StatefulSet, kind, reason, format string, args ...any) {
	ref := &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.Kind.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: set.Name, Namespace: set.Namespace, UID: set.UID, ResourceVersion: set.ResourceVersion}}
	p.recorder.Eventf(ref, kind, reason, format, args...)
}
