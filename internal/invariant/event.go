package invariant

import (
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// Kind is the resource kind of an observed object.
type Kind string

// The kinds the checker follows.
const (
	KindPod      Kind = "Pod"
	KindClaim    Kind = "PersistentVolumeClaim"
	KindRevision Kind = "ControllerRevision"
	KindSet      Kind = "StatefulSet"
	// KindExtendedSet is the extended StatefulSet, apps.ordinal.dev's.
	KindExtendedSet Kind = "StatefulSet.apps.ordinal.dev"
	// KindNode and KindVolume are followed with Options.Nodes.
	KindNode   Kind = "Node"
	KindVolume Kind = "PersistentVolume"
	// KindBudget is the PodDisruptionBudget, which RuleDisruptionBudget
	// reads.
	KindBudget Kind = "PodDisruptionBudget"
	// KindConfigMap is the ConfigMap, whose live copies RuleConfigCopies
	// reads.
	KindConfigMap Kind = "ConfigMap"
	// KindEviction is lifecycle.k8s.io's Eviction, followed with
	// Options.Evictions.
	KindEviction Kind = "Eviction"
)

// Event is one observed version of an object.
//
// RV is the object's resourceVersion as a number. The checker orders events
// of all kinds by RV: with one etcd behind the API server, resourceVersions
// are etcd revisions, a single commit order shared by every resource, and a
// DELETED event carries the revision of the delete. Events with equal RV
// keep their arrival order.
//
// Time is when the watcher received the event; it is only used for the
// staleness window (Options.Window), never for ordering.
//
// Relisted marks an event synthesised from a relist after a watch expired:
// for a DELETED one the real delete happened at some unknown point between
// the object's last observed version and the list, so rules that need the
// exact moment of a delete accept it as early as needed.
type Event struct {
	Kind     Kind
	Type     watch.EventType
	Object   runtime.Object
	RV       uint64
	Time     time.Time
	Relisted bool
}

// Violation is one broken rule, with enough context to find it in a log.
type Violation struct {
	Rule    Rule
	Object  string // namespace/name of the object the rule is about
	RV      uint64 // commit position of the offending event (0: final state)
	Time    time.Time
	Message string
	// InCharge is the controller in charge when the offending change
	// committed; set only when the history has hand-overs.
	InCharge Controller
}

func (v Violation) String() string {
	at := "final state"
	if v.RV != 0 {
		at = "rv " + strconv.FormatUint(v.RV, 10) + " at " + v.Time.Format("15:04:05.000")
	}
	if v.InCharge != "" {
		at += ", " + string(v.InCharge) + " in charge"
	}
	return fmt.Sprintf("[%s] %s (%s): %s", v.Rule, v.Object, at, v.Message)
}

// Options tune the checker.
type Options struct {
	// Window is how stale a controller's view may be: a decision taken at
	// commit time t is judged against every state observed in [t-Window, t].
	// A controller acts on its informer cache, so a predecessor that turns
	// unready (or a spec that changes) just before a create commits is a
	// race, not a bug; a decision no state in the window justifies is.
	// Default 10s (it covers a few injected slow requests and client
	// retries).
	Window time.Duration
	// ReadySlack forgives clock granularity when judging availability
	// under minReadySeconds (conditions carry whole seconds). Default 1s.
	ReadySlack time.Duration
	// Nodes makes Watch follow Nodes and PersistentVolumes too, cluster
	// wide, so that the node-failure rules judge which node a pod was
	// force-deleted from and which host a deleted claim's volume was on.
	Nodes bool
	// Quarantine is the controller's --node-loss-quarantine: with Nodes,
	// a claim deleted for a lost host must have had its host lost
	// throughout the quarantine (less the window) before. 0, or one no
	// longer than the window, judges only the window.
	Quarantine time.Duration
	// Evictions makes Watch follow the namespace's Evictions
	// (lifecycle.k8s.io/v1alpha1, served under the EvictionRequestAPI
	// gate): a controller deletion of a pod whose Eviction made the
	// controller its active responder is the set's answer to an eviction
	// request, not the rolling update's (notTheUpdates).
	Evictions bool
}

// DefaultWindow is Options.Window when unset.
const DefaultWindow = 10 * time.Second

func (o Options) withDefaults() Options {
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.ReadySlack == 0 {
		o.ReadySlack = time.Second
	}
	return o
}

// ExternalDelete records that someone other than the controller (a test,
// a person, the pod garbage collector after a node removal) deleted the pod
// or claim with this UID, so ordering and retention rules do not judge it.
type ExternalDelete struct {
	UID types.UID
}

// ParseRV converts a resourceVersion to a number; 0 when it is not one.
func ParseRV(rv string) uint64 {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0
	}
	return n
}
