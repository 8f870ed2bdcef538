package invariant

import (
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Checker is the pure core: it records events in any arrival order and
// judges the whole history, replayed in commit order, when asked. It is
// safe for concurrent use.
type Checker struct {
	opts      Options
	mu        sync.Mutex
	events    []Event
	external  map[types.UID]bool
	handOvers []handOver
	userWrites
}

// New returns an empty checker.
func New(opts Options) *Checker {
	return &Checker{opts: opts.withDefaults(), external: map[types.UID]bool{},
		userWrites: userWrites{userRVs: map[uint64]bool{}, userSets: map[types.UID]bool{}}}
}

// Observe records one event.
func (c *Checker) Observe(ev Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, ev)
}

// ExternalDelete records that the pod or claim with uid is deleted by
// someone other than the controller; call it before deleting.
func (c *Checker) ExternalDelete(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.external[uid] = true
}

// Len returns how many events were recorded.
func (c *Checker) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.events)
}

// Violations replays the history recorded so far in commit order and
// returns every broken rule, in the order found.
func (c *Checker) Violations() []Violation {
	c.mu.Lock()
	events := append([]Event(nil), c.events...)
	external := make(map[types.UID]bool, len(c.external))
	for k, v := range c.external {
		external[k] = v
	}
	users := c.userWrites.clone()
	c.mu.Unlock()
	sort.SliceStable(events, func(i, j int) bool { return events[i].RV < events[j].RV })
	r := newReplay(c.opts, external)
	r.userWrites = users
	for _, ev := range events {
		if r.began.IsZero() || ev.Time.Before(r.began) {
			r.began = ev.Time
		}
	}
	for _, ev := range events {
		r.apply(ev)
	}
	r.closeRecreate()
	r.closeClaimOwner()
	attribute(r.out, c.handOversByRV())
	return r.out
}

// replay is the state of one pass over a history.
type replay struct {
	opts     Options
	external map[types.UID]bool
	sets     map[string]*setTrack   // by namespace/name
	pods     map[string]*podTrack   // by namespace/name
	claims   map[string]*claimTrack // by namespace/name
	revs     map[string]*appsv1.ControllerRevision
	// reserved holds the ordinals each version of an extended set
	// reserves (spec.reserveOrdinals), by the version's apps/v1 view.
	reserved map[*appsv1.StatefulSet][]v1alpha1.OrdinalRange
	// offline holds each version's offline ordinals (offline.go).
	offline map[*appsv1.StatefulSet][]v1alpha1.OrdinalRange
	// nodes and volumes are followed with Options.Nodes (nodes.go).
	nodes   map[string]*nodeTrack
	volumes map[string]*corev1.PersistentVolume
	// nodeLabels are the labels of each node by name (topology.go).
	nodeLabels map[string]map[string]string
	// budgets are the PodDisruptionBudgets as last observed, by
	// namespace/name.
	budgets map[string]*policyv1.PodDisruptionBudget
	// configMaps are the ConfigMaps' metadata as last observed, by
	// namespace/name (configcopies.go).
	configMaps map[string]*corev1.ConfigMap
	// asked says, by pod UID, whether an Eviction made the controller its
	// active responder, over time (evictionrequests.go).
	asked map[types.UID]*timeline[bool]
	// recreateClaims are scale-down deletions under Recreate that wait
	// for a status to excuse them (recreate.go).
	recreateClaims []recreateClaim
	// ownerClaims are claim-owner violations that wait for their set's
	// next version (ownergap.go).
	ownerClaims []ownerClaim
	// began is the earliest event's time: nothing is known before it.
	began time.Time
	out   []Violation
	userWrites
}

func newReplay(opts Options, external map[types.UID]bool) *replay {
	return &replay{opts: opts, external: external, sets: map[string]*setTrack{},
		pods: map[string]*podTrack{}, claims: map[string]*claimTrack{}, revs: map[string]*appsv1.ControllerRevision{},
		reserved: map[*appsv1.StatefulSet][]v1alpha1.OrdinalRange{}, offline: map[*appsv1.StatefulSet][]v1alpha1.OrdinalRange{},
		nodes: map[string]*nodeTrack{}, volumes: map[string]*corev1.PersistentVolume{}, nodeLabels: map[string]map[string]string{},
		budgets: map[string]*policyv1.PodDisruptionBudget{}, configMaps: map[string]*corev1.ConfigMap{},
		asked:      map[types.UID]*timeline[bool]{},
		userWrites: userWrites{userRVs: map[uint64]bool{}, userSets: map[types.UID]bool{}}}
}

func (r *replay) apply(ev Event) {
	switch obj := ev.Object.(type) {
	case *appsv1.StatefulSet:
		r.applySet(ev, obj)
	case *v1alpha1.StatefulSet:
		r.applyExtendedSet(ev, obj)
	case *corev1.Pod:
		r.applyPod(ev, obj)
	case *corev1.PersistentVolumeClaim:
		r.applyClaim(ev, obj)
	case *appsv1.ControllerRevision:
		r.applyRevision(ev, obj)
	case *corev1.Node:
		r.applyNode(ev, obj)
	case *corev1.PersistentVolume:
		r.applyVolume(ev, obj)
	case *policyv1.PodDisruptionBudget:
		r.applyBudget(ev, obj)
	case *corev1.ConfigMap:
		r.applyConfigMap(ev, obj)
	case *lifecyclev1alpha1.Eviction:
		r.applyEviction(ev, obj)
	}
}

func (r *replay) violate(rule Rule, object string, ev Event, format string, args ...any) {
	r.out = append(r.out, Violation{Rule: rule, Object: object, RV: ev.RV, Time: ev.Time, Message: sprintf(format, args...)})
}
