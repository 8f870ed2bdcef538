package invariant

import (
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// setTrack follows one StatefulSet name of one kind. The rules read every
// version as an apps/v1 set; an extended set's versions are views of it
// (ExtendedView), and ext keeps each view's extended original.
type setTrack struct {
	kind    Kind
	ns      string
	name    string
	uid     types.UID
	cur     *appsv1.StatefulSet // nil once deleted
	history timeline[*appsv1.StatefulSet]
	gone    bool // deleted or terminating
	// ordinals holds every pod ordinal ever observed for the set.
	ordinals map[int32]bool
	// ext maps each version of an extended set to the object it views;
	// nil for an apps/v1 set.
	ext map[*appsv1.StatefulSet]*v1alpha1.StatefulSet
	// rollbacks follows the extended set's spec.template and
	// status.rollback for the rollback rules.
	rollbacks rollbackTrack
}

func key(ns, name string) string { return ns + "/" + name }

// setKey names a set of a kind: the kinds have separate name spaces.
func setKey(kind Kind, ns, name string) string {
	if kind == KindExtendedSet {
		return key(ns, name) + " (" + v1alpha1.GroupName + ")"
	}
	return key(ns, name)
}

// applySet checks the status rules and records the spec and status.
func (r *replay) applySet(ev Event, set *appsv1.StatefulSet) {
	r.trackSet(ev, KindSet, set)
}

// trackSet records one version of a set of kind, checking the status
// rules; it returns the set's track.
func (r *replay) trackSet(ev Event, kind Kind, set *appsv1.StatefulSet) *setTrack {
	k := key(set.Namespace, set.Name)
	st := r.sets[setKey(kind, set.Namespace, set.Name)]
	if st == nil || st.uid != set.UID {
		st = &setTrack{kind: kind, ns: set.Namespace, name: set.Name, uid: set.UID, ordinals: map[int32]bool{}}
		r.sets[setKey(kind, set.Namespace, set.Name)] = st
	}
	if ev.Type == watch.Deleted {
		st.gone, st.cur = true, nil
		return st
	}
	if prev := st.cur; prev != nil {
		if pc, c := prev.Status.CollisionCount, set.Status.CollisionCount; pc != nil && c != nil && *c < *pc {
			r.violate(RuleCollisionCount, k, ev, "status.collisionCount went from %d to %d", *pc, *c)
		}
		if set.Status.ObservedGeneration < prev.Status.ObservedGeneration {
			r.violate(RuleObservedGeneration, k, ev, "status.observedGeneration went from %d to %d",
				prev.Status.ObservedGeneration, set.Status.ObservedGeneration)
		}
	}
	r.settleClaimOwner(st, set, ev.Relisted)
	st.cur = set
	st.gone = st.gone || set.DeletionTimestamp != nil
	st.history.add(ev.Time, set)
	r.settleRecreate(st, set, ev.Time)
	return st
}

// specsWithin returns the set versions current within the window before t.
func (r *replay) specsWithin(st *setTrack, t time.Time) []*appsv1.StatefulSet {
	return st.history.within(t.Add(-r.opts.Window), t)
}

// setOf finds the set a pod or claim name belongs to: the name, minus a
// claim template prefix, is <set>-<ordinal>. When sets of both kinds match,
// the one that owns obj wins (then the apps/v1 one, so the choice does not
// depend on map order). It returns nil when none matches.
func (r *replay) setOf(obj metav1.Object, claim bool) (*setTrack, int32) {
	var found *setTrack
	var ordinal int32
	for _, st := range r.sets {
		if st.ns != obj.GetNamespace() || (st.cur == nil && len(st.history) == 0) {
			continue
		}
		rest, ok := obj.GetName(), true
		if claim {
			if rest, ok = claimRest(st, rest, st.name); !ok {
				continue
			}
		}
		ord, ok := parseOrdinal(st.name, rest)
		if ok && (found == nil || betterOwner(st, found, obj)) {
			found, ordinal = st, ord
		}
	}
	return found, ordinal
}

// betterOwner reports whether st is a likelier set of obj than other.
func betterOwner(st, other *setTrack, obj metav1.Object) bool {
	if a, b := owned(obj, st.uid), owned(obj, other.uid); a != b {
		return a
	}
	return st.kind == KindSet
}

// setByOwner returns the live track of the set a controller reference
// names, or nil.
func (r *replay) setByOwner(ns string, ref *metav1.OwnerReference) *setTrack {
	kind := KindSet
	if strings.HasPrefix(ref.APIVersion, v1alpha1.GroupName+"/") {
		kind = KindExtendedSet
	}
	st := r.sets[setKey(kind, ns, ref.Name)]
	if st == nil || st.uid != ref.UID {
		return nil
	}
	return st
}

// claimRest strips a claim template prefix of the set from name.
func claimRest(st *setTrack, name, setName string) (string, bool) {
	for _, tmpl := range st.latest().Spec.VolumeClaimTemplates {
		if strings.HasPrefix(name, tmpl.Name+"-"+setName+"-") {
			return name[len(tmpl.Name)+1:], true
		}
	}
	return "", false
}

// latest is the last observed version of the set, even once deleted.
func (st *setTrack) latest() *appsv1.StatefulSet {
	return st.history[len(st.history)-1].state
}

// parseOrdinal parses <set>-<n> with n a canonical decimal.
func parseOrdinal(setName, name string) (int32, bool) {
	s, ok := strings.CutPrefix(name, setName+"-")
	if !ok || s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return 0, false
	}
	return int32(n), true
}

func span(set *appsv1.StatefulSet) (start, end int32) {
	if set.Spec.Ordinals != nil {
		start = set.Spec.Ordinals.Start
	}
	replicas := int32(1)
	if set.Spec.Replicas != nil {
		replicas = *set.Spec.Replicas
	}
	return start, start + replicas
}

func inRange(set *appsv1.StatefulSet, ord int32) bool {
	start, end := span(set)
	return ord >= start && ord < end
}

func orderedReady(set *appsv1.StatefulSet) bool {
	return set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement
}

func rollingUpdate(set *appsv1.StatefulSet) bool {
	return set.Spec.UpdateStrategy.Type == "" || set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType
}

func partitionOf(set *appsv1.StatefulSet) int32 {
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		return *ru.Partition
	}
	return 0
}

func oneAtATime(set *appsv1.StatefulSet) bool {
	ru := set.Spec.UpdateStrategy.RollingUpdate
	return ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.String() == "1"
}

func owned(obj metav1.Object, uid types.UID) bool {
	ref := metav1.GetControllerOf(obj)
	return ref == nil || ref.UID == uid
}

// healthyAt is the predicate OrderedReady waits for; see Rule.
func (r *replay) healthyAt(pod *corev1.Pod, minReady int32, at time.Time) bool {
	if pod == nil || pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning || gateFalse(pod) {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type != corev1.PodReady {
			continue
		}
		if c.Status != corev1.ConditionTrue {
			return false
		}
		if minReady == 0 {
			return true
		}
		since := c.LastTransitionTime.Add(time.Duration(minReady)*time.Second - r.opts.ReadySlack)
		return !c.LastTransitionTime.IsZero() && !since.After(at)
	}
	return false
}
