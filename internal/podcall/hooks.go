package podcall

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// hookCaller makes the calls of http lifecycle hooks, in the background:
// a sync never waits on a user's endpoint. Each call's outcome is written
// to the pod — its hook label Done on a 2xx answer, the attempt count,
// time and a short fixed reason (never the answer's body) in the hook's
// annotation either way — so the next plan (of this controller or one
// started after it) knows where the hook stands; the pod's update is the
// event that syncs the set again.
type hookCaller struct {
	client kubernetes.Interface
	// memory is the calls under way and made, by set (memory.go).
	memory *callMemory
	net    *hookNet
	// tokens is nil when calls carry no caller token.
	tokens *hookTokens
	now    func() time.Time
}

// newHookCaller builds the caller of opts' policy, proxy and token; own
// is the controller's own addresses. It loads the system's certificate
// roots, which an https hook without a caBundle is verified against:
// the first verification would otherwise load them inside the first
// call's timeout, where reading and parsing a few hundred certificates
// on a busy node can take longer than a short timeout allows.
func newHookCaller(ctx context.Context, client kubernetes.Interface, opts HookOptions, own []netip.Addr) *hookCaller {
	_, _ = x509.SystemCertPool() // loaded once per process; an error is the call's to report
	lookup := net.DefaultResolver.LookupNetIP
	h := &hookCaller{client: client, memory: newCallMemory(), now: time.Now,
		net: &hookNet{policy: newHookPolicy(ctx, opts, own, lookup), lookup: lookup}}
	if opts.ProxyFromEnvironment {
		h.net.proxy = http.ProxyFromEnvironment
	}
	if opts.TokenServiceAccount.Name != "" {
		h.tokens = &hookTokens{client: client, sa: opts.TokenServiceAccount, now: time.Now}
	}
	return h
}

// start makes the call a CallHook action asks for, unless it is under way
// or was made already.
func (h *hookCaller) start(ctx context.Context, setKey string, a planner.Action) {
	call := a.Call
	key := string(a.Pod.UID) + "|" + call.Hook.Label
	if !h.memory.begin(setKey, key, call.Request.Attempt, h.now()) {
		return
	}
	go func() {
		err := h.call(ctx, call)
		if err != nil {
			logHookFailure(ctx, setKey, a, err)
		}
		recorded := h.record(ctx, setKey, a, err)
		h.memory.end(setKey, key, call.Request.Attempt, recorded, h.now())
	}()
}

// call POSTs the request and returns nil on a 2xx answer, else a
// *hookFailure.
func (h *hookCaller) call(ctx context.Context, call *planner.HookCall) error {
	body, err := json.Marshal(call.Request)
	if err != nil {
		return hookFailed("request not encoded", err)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), call.Timeout)
	defer cancel()
	target, err := targetOf(ctx, h.client, call.Hook.HTTP)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.url, bytes.NewReader(body))
	if err != nil {
		return hookFailed("invalid URL", nil)
	}
	if target.host != "" {
		req.Host = target.host
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "ordinal-statefulset-controller")
	if h.tokens != nil {
		token, err := h.tokens.get(ctx, call.Request.Namespace)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client, err := h.net.client(target)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return classify(ctx, err, call.Timeout)
	}
	_ = resp.Body.Close()
	return answered(resp)
}

// logHookFailure logs a failed call with the error behind its reason: the
// endpoint without its URL's query and user information, never a token.
func logHookFailure(ctx context.Context, setKey string, a planner.Action, err error) {
	kv := []any{"statefulset", setKey, "pod", a.Pod.Name, "hook", a.Call.Hook.Name, "endpoint", a.Call.Hook.HTTP.String(),
		"attempt", a.Call.Request.Attempt, "reason", err.Error()}
	var f *hookFailure
	if errors.As(err, &f) && f.Detail != nil {
		kv = append(kv, "detail", f.Detail.Error())
	}
	klog.FromContext(ctx).V(2).Info("Lifecycle hook call failed", kv...)
}

// record writes the attempt's outcome to the pod: the pod of that UID only
// (the patch names it), and nothing when it is gone. It reports whether
// the outcome is settled; when the write failed, the next plan asks for
// the call again.
func (h *hookCaller) record(ctx context.Context, setKey string, a planner.Action, callErr error) bool {
	call := a.Call
	rec := call.Record
	rec.Attempts, rec.LastAttempt, rec.LastError = call.Request.Attempt, h.now().UTC().Truncate(time.Second), ""
	meta := map[string]any{"uid": a.Pod.UID}
	if callErr != nil {
		rec.LastError = "call failed"
		var f *hookFailure
		if errors.As(callErr, &f) {
			rec.LastError = f.Reason
		}
	} else {
		meta["labels"] = map[string]any{call.Hook.Label: v1alpha1.HookDone}
	}
	text, err := json.Marshal(rec)
	if err != nil {
		return true
	}
	meta["annotations"] = map[string]any{call.Hook.Label: string(text)}
	patch, _ := json.Marshal(map[string]any{"metadata": meta})
	_, err = h.client.CoreV1().Pods(a.Pod.Namespace).Patch(context.WithoutCancel(ctx), a.Pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		klog.FromContext(ctx).Error(err, "Recording a lifecycle hook call", "statefulset", setKey, "pod", a.Pod.Name, "hook", call.Hook.Name)
		return false
	}
	return true
}
