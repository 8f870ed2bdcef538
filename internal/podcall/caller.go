package podcall

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Caller is every call the controller makes to its pods and to the
// endpoints their sets name. Each runs in the background: no method waits
// on a user's endpoint, and each outcome is written to the pod, whose
// update syncs the set again.
type Caller interface {
	// StartHook makes the call a CallHook action of the set of setKey
	// asks for, unless it is under way or was made already.
	StartHook(ctx context.Context, setKey string, a planner.Action)
	// EnsureRoleProbe starts the role probe's loop of the extended set of
	// key unless it runs or the set asks for no probes. ctx ends every
	// loop; a loop also ends by itself once the set is gone or no longer
	// asks.
	EnsureRoleProbe(ctx context.Context, key string, set *v1alpha1.StatefulSet)
	// Forget drops what the caller remembers of the calls of a deleted
	// set.
	Forget(setKey string)
}

// Config is what New builds a Caller of.
type Config struct {
	Client kubernetes.Interface
	// Recorder records the role probe's events on the sets.
	Recorder record.EventRecorder
	// Hooks say where calls may go and with which identity; its
	// SimulatedPods serve the role probe alone.
	Hooks HookOptions
	// RoleProbe bounds the role probe's calls and writes over every set.
	RoleProbe RoleProbeOptions
	// Set reads an extended set from the controller's cache by its key.
	Set func(key string) (*v1alpha1.StatefulSet, bool)
	// Pods are the cached pods a set (by UID) controls.
	Pods func(types.UID) []Pod
}

// Pod is what the role probe reads of a pod in the controller's cache.
type Pod struct {
	UID       types.UID
	Namespace string
	Name      string
	Phase     corev1.PodPhase
	// IP is the pod's address (status.podIP), "" before it has one.
	IP     string
	Labels map[string]string
	// Annotations are those the cache keeps, among them the role probe's
	// (v1alpha1.RoleProbeAnnotation); nil for none.
	Annotations map[string]string
}

// calls is the Caller of the API: the hook caller and the role prober,
// which share the address policy.
type calls struct {
	hooks  *hookCaller
	probes *roleProber
}

var _ Caller = (*calls)(nil)

// New builds the Caller of cfg. ctx is where it logs what it learns at
// start (the API server's and the controller's own addresses, for the
// address policy). The role prober calls through the hook caller's
// policy without its proxy.
func New(ctx context.Context, cfg Config) Caller {
	hooks := newHookCaller(ctx, cfg.Client, cfg.Hooks, interfaceAddrs())
	probes := &roleProber{client: cfg.Client, recorder: cfg.Recorder, now: time.Now, limits: newProbeLimits(cfg.RoleProbe),
		net: &hookNet{policy: hooks.net.policy, lookup: hooks.net.lookup, simulated: cfg.Hooks.SimulatedPods},
		set: cfg.Set, pods: cfg.Pods}
	return &calls{hooks: hooks, probes: probes}
}

func (c *calls) StartHook(ctx context.Context, setKey string, a planner.Action) {
	c.hooks.start(ctx, setKey, a)
}

func (c *calls) EnsureRoleProbe(ctx context.Context, key string, set *v1alpha1.StatefulSet) {
	c.probes.ensure(ctx, key, set)
}

// Forget drops the set's hook calls. The role probe's loop of the set
// ends by itself at its next round, which finds the set gone.
func (c *calls) Forget(setKey string) {
	c.hooks.memory.forget(setKey)
}
