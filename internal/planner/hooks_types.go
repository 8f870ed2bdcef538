package planner

import (
	"time"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Hook is one lifecycle hook of an extended set (spec.lifecycle).
type Hook struct {
	// Name is "preUpdate", "preDelete", "postCreate" or "postUpdate";
	// Label is its pod label (and annotation) key.
	Name, Label string
	// Member marks a member hook (postCreate, postUpdate): it is about the
	// revision the pod runs, not the one the set updates to.
	Member bool
	// Reload marks the reload hook: it is about the revision whose data
	// the pod's live ConfigMaps hold (reload.go).
	Reload bool
	// HTTP is where an http or service hook calls; nil for a handshake.
	HTTP    *HookEndpoint
	Timeout time.Duration
	// Proceed goes on after a failure or timeout; otherwise the hook
	// halts.
	Proceed bool
}

// HookEndpoint is where a hook calls: a URL, or a Service of the set's
// namespace.
type HookEndpoint struct {
	// URL is the http handler's URL; empty for a Service.
	URL string
	// Service is the service handler's Service; nil for a URL.
	Service *HookService
	// CABundle is the PEM bundle an https call's certificate must chain
	// to; empty for the system's roots (a URL) or plain http (a Service).
	CABundle []byte
}

// HookService is a Service port and path; with a CA bundle the call is
// https for the name <Name>.<Namespace>.svc.
type HookService struct {
	Namespace, Name string
	Port            int32
	Path            string
}

// HookCall is one call of an http hook.
type HookCall struct {
	Hook    Hook
	Request v1alpha1.HookRequest
	// Record is the hook's annotation as the plan saw it; the executor
	// writes it back with the attempt's outcome.
	Record v1alpha1.HookRecord
	// Timeout bounds the call: at most MaxHookCall, and never past the
	// hook's own timeout.
	Timeout time.Duration
}
