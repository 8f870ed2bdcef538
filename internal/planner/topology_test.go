package planner_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// onNode schedules a pod on a node.
// zoneNodes are nodes named after their zone, plus "bare", a node
// without the label.
var zoneNodes = map[string]string{"node-a": "a", "node-b": "b", "node-c": "c"}

// zoned is the extended defaults with a topology over zoneNodes.
func zoned(perDomain int, order ...string) *planner.Extended {
	return extended(func(e *planner.Extended) {
		e.Topology = &planner.Topology{Key: "topology.kubernetes.io/zone", MaxUnavailablePerDomain: perDomain, Order: order}
		observedOf(e).Domains = zoneNodes
	})
}

// zoneOf puts ordinal i in zone a, b or c by i % 3, so six pods are two
// per zone: a {0, 3}, b {1, 4}, c {2, 5}.
func zoneOf(ord int32) testgen.PodOption {
	return onNode("node-" + string(rune('a'+ord%3)))
}

// zonedPods builds current-revision pods in their zones.
func zonedPods(f fixture, ordinals ...int32) []*corev1.Pod {
	var out []*corev1.Pod
	for _, ord := range ordinals {
		out = append(out, f.pod(ord, zoneOf(ord)))
	}
	return out
}

func zonedUpdated(f fixture, ord int32, opts ...testgen.PodOption) *corev1.Pod {
	return f.updated(ord, append([]testgen.PodOption{zoneOf(ord)}, opts...)...)
}

type topologyScenario struct {
	name  string
	e     *planner.Extended
	pods  []*corev1.Pod
	steps []string
	// wait is a phrase the first wait's policy holds, when steps is empty.
	wait string
}

func TestTopologyTakesOneDomainAtATimeWithinItsBudget(t *testing.T) {
	f := rollout(testgen.Replicas(6), testgen.Parallel(), testgen.MaxUnavailable(3))
	for _, sc := range []topologyScenario{{
		name:  "the first domain by name goes first, one pod at a time",
		e:     zoned(1),
		pods:  zonedPods(f, 0, 1, 2, 3, 4, 5),
		steps: []string{"rolling update: DeletePod web-3"},
	}, {
		name:  "a budget of two per domain takes both pods of the first domain",
		e:     zoned(2),
		pods:  zonedPods(f, 0, 1, 2, 3, 4, 5),
		steps: []string{"rolling update: DeletePod web-3", "rolling update: DeletePod web-0"},
	}, {
		name: "the domain's budget is spent by its pod on its way back",
		e:    zoned(1),
		pods: with(zonedPods(f, 0, 1, 2, 4, 5), zonedUpdated(f, 3, testgen.NotReady(now))),
		wait: "maxUnavailablePerDomain 1, 1 unavailable in a now",
	}, {
		name: "the next domain waits until every pod of the first is updated and Available",
		e:    zoned(2),
		pods: with(zonedPods(f, 1, 2, 4, 5), zonedUpdated(f, 0), zonedUpdated(f, 3, testgen.NotReady(now))),
		wait: "web-5 in c waits until a is updated and Available",
	}, {
		name:  "once the first domain is done the next one starts",
		e:     zoned(1),
		pods:  with(zonedPods(f, 1, 2, 4, 5), zonedUpdated(f, 0), zonedUpdated(f, 3)),
		steps: []string{"rolling update: DeletePod web-4"},
	}, {
		name:  "order lists the domains that go first",
		e:     zoned(1, "c", "a"),
		pods:  zonedPods(f, 0, 1, 2, 3, 4, 5),
		steps: []string{"rolling update: DeletePod web-5"},
	}, {
		name:  "domains order does not list follow by name",
		e:     zoned(1, "c"),
		pods:  with(zonedPods(f, 0, 1, 3, 4), zonedUpdated(f, 2), zonedUpdated(f, 5)),
		steps: []string{"rolling update: DeletePod web-3"},
	}, {
		name: "pods on nodes without the label go last",
		e:    zoned(1),
		pods: []*corev1.Pod{zonedUpdated(f, 0), zonedUpdated(f, 1), zonedUpdated(f, 2), f.pod(3, onNode("bare")),
			zonedUpdated(f, 4), f.pod(5, zoneOf(5))},
		steps: []string{"rolling update: DeletePod web-5"},
	}, {
		name: "and go once every labelled domain is done",
		e:    zoned(1),
		pods: []*corev1.Pod{zonedUpdated(f, 0), zonedUpdated(f, 1), zonedUpdated(f, 2), f.pod(3, onNode("bare")),
			zonedUpdated(f, 4), zonedUpdated(f, 5)},
		steps: []string{"rolling update: DeletePod web-3"},
	}, {
		name:  "an old pod already unavailable in a later domain is replaced at once, as it costs nothing",
		e:     zoned(1),
		pods:  with(zonedPods(f, 0, 1, 2, 3, 4), f.pod(5, zoneOf(5), testgen.NotReady(now))),
		steps: []string{"rolling update: DeletePod web-5", "rolling update: DeletePod web-3"},
	}, {
		name: "a pod not yet on a node may land in any domain, so it holds a budget of one",
		e:    zoned(1),
		pods: with(zonedPods(f, 0, 1, 2, 4, 5), zonedUpdated(f, 3, testgen.Pending())),
		wait: "maxUnavailablePerDomain 1",
	}, {
		name: "and it keeps the update from starting a domain, since it may belong to the one before",
		e:    zoned(3),
		pods: with(zonedPods(f, 1, 2, 4, 5), zonedUpdated(f, 0), f.updated(3, testgen.Pending())),
		wait: "1 pod(s) not yet on a node may land in a domain before b",
	}, {
		name:  "the set's maxUnavailable still holds",
		e:     zoned(3),
		pods:  with(zonedPods(f, 0, 1, 2, 3, 4), f.pod(5, zoneOf(5), testgen.NotReady(now)), f.pod(2, zoneOf(2), testgen.NotReady(now))),
		steps: []string{"rolling update: DeletePod web-5", "rolling update: DeletePod web-2", "rolling update: DeletePod web-3"},
	}, {
		name:  "an apps/v1 set ignores nodes",
		e:     nil,
		pods:  zonedPods(f, 0, 1, 2, 3, 4, 5),
		steps: []string{"rolling update: DeletePod web-5", "rolling update: DeletePod web-4", "rolling update: DeletePod web-3"},
	}} {
		t.Run(sc.name, func(t *testing.T) {
			plan := f.ext(sc.e, dedupe(sc.pods)...)
			if diff := cmp.Diff(sc.steps, f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if sc.wait == "" {
				return
			}
			if len(plan.Waits) == 0 || !strings.Contains(plan.Waits[0].Policy, sc.wait) {
				t.Errorf("waits %+v, want the first to say %q", plan.Waits, sc.wait)
			}
		})
	}
}

// dedupe keeps the last pod of each name, so a table can replace one.
func dedupe(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for i, p := range pods {
		if !slices.ContainsFunc(pods[i+1:], func(q *corev1.Pod) bool { return q.Name == p.Name }) {
			out = append(out, p)
		}
	}
	return out
}

func TestTopologyHoldsWhenTheNodesAreUnknown(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	e := zoned(1)
	observedOf(e).Domains = nil
	plan := f.ext(e, zonedPods(f, 0, 1, 2)...)
	if got := f.summary(plan); len(got) != 0 {
		t.Errorf("steps %v, want none while the nodes are unknown", got)
	}
	if got := warningReasons(plan); !slices.Contains(got, planner.ReasonTopologyUnknown+" StatefulSet/web") {
		t.Errorf("warnings %v, want %s", got, planner.ReasonTopologyUnknown)
	}
}

func TestThePlanListsTheDomainsInRolloutOrder(t *testing.T) {
	f := rollout(testgen.Replicas(6), testgen.Parallel(), testgen.MaxUnavailable(3))
	pods := []*corev1.Pod{zonedUpdated(f, 0), f.pod(1, zoneOf(1)), f.pod(2, zoneOf(2)), zonedUpdated(f, 3), f.pod(4, zoneOf(4)), f.pod(5, onNode("bare"))}
	plan := f.ext(zoned(1, "c"), pods...)
	want := []planner.DomainProgress{
		{Name: "c", Pods: 1, Updated: 0, Unavailable: 1, Active: true},
		{Name: "a", Pods: 2, Updated: 2, Done: true},
		{Name: "b", Pods: 2},
		{Name: planner.NoDomain, Pods: 1},
	}
	if diff := cmp.Diff(want, plan.Extended.Domains); diff != "" {
		t.Errorf("domains (-want +got):\n%s", diff)
	}
	if got := f.summary(plan); !slices.Equal(got, []string{"rolling update: DeletePod web-2"}) {
		t.Errorf("steps %v, want web-2 of c, the first domain of order", got)
	}
}

// The domain budget as a property: on random sets, pods, zones and
// budgets, every Available pod a plan takes is in the first domain of
// the order that is not done, and that domain never has more pods
// unavailable than maxUnavailablePerDomain because of it, counting the
// pods not yet on a node, which may land there.
func TestTopologyNeverTakesAnAvailablePodPastItsDomainsBudget(t *testing.T) {
	zones := []string{"node-a", "node-b", "node-c", "bare", ""}
	for seed := range uint64(1000) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := int32(2 + rng.IntN(8))
		f := rollout(testgen.Replicas(n), testgen.Parallel(), testgen.MaxUnavailable(int32(1+rng.IntN(4))))
		var pods []*corev1.Pod
		for ord := range n {
			if rng.IntN(10) == 0 {
				continue // missing
			}
			opts := []testgen.PodOption{onNode(zones[rng.IntN(len(zones))])}
			if rng.IntN(4) == 0 {
				opts = append(opts, testgen.NotReady(now))
			}
			if rng.IntN(2) == 0 {
				pods = append(pods, f.updated(ord, opts...))
			} else {
				pods = append(pods, f.pod(ord, opts...))
			}
		}
		per, order := 1+rng.IntN(3), []string{"c", "b"}[:rng.IntN(3)]
		plan := f.ext(zoned(per, order...), pods...)
		if err := checkDomainBudget(f, plan, pods, n, per, order); err != nil {
			t.Fatalf("seed %d: %v\npods: %s\nsteps: %v", seed, err, describePods(pods), f.summary(plan))
		}
	}
}

// checkDomainBudget re-derives the rule from the pods alone: domains in
// order (listed first, then by name, nodes without the label last), the
// active one the first with a pod not updated or not Available.
func checkDomainBudget(f fixture, plan planner.Plan, pods []*corev1.Pod, n int32, per int, order []string) error {
	byName := map[string]*corev1.Pod{}
	unplaced := int(n) - len(pods)
	var domains []string
	for _, p := range pods {
		byName[p.Name] = p
		if p.Spec.NodeName == "" {
			unplaced++
		} else if d := zoneNodes[p.Spec.NodeName]; !slices.Contains(domains, d) {
			domains = append(domains, d)
		}
	}
	rank := func(d string) int {
		if d == "" {
			return 99
		}
		if i := slices.Index(order, d); i >= 0 {
			return i
		}
		return 50
	}
	slices.SortFunc(domains, func(a, b string) int {
		if rank(a) != rank(b) {
			return rank(a) - rank(b)
		}
		return strings.Compare(a, b)
	})
	active, found := "", false
	for _, d := range domains {
		for _, p := range pods {
			if p.Spec.NodeName != "" && zoneNodes[p.Spec.NodeName] == d && (p.Labels["controller-revision-hash"] != f.upd.Name || !planner.IsAvailable(p, 0, now)) {
				active, found = d, true
			}
		}
		if found {
			break
		}
	}
	taken := 0
	for _, s := range plan.Steps {
		for _, a := range s.Actions {
			p := byName[a.Pod.Name]
			if a.Kind != planner.DeletePod || p == nil || !planner.IsAvailable(p, 0, now) {
				continue
			}
			if d := zoneNodes[p.Spec.NodeName]; p.Spec.NodeName == "" || !found || d != active {
				return fmt.Errorf("took Available %s in %q, outside the active domain %q", p.Name, d, active)
			}
			taken++
		}
	}
	before := 0
	for _, p := range pods {
		if p.Spec.NodeName != "" && zoneNodes[p.Spec.NodeName] == active && !planner.IsAvailable(p, 0, now) {
			before++
		}
	}
	if taken > 0 && before+unplaced+taken > per {
		return fmt.Errorf("domain %q: %d unavailable, %d not on a node, %d taken: over %d", active, before, unplaced, taken, per)
	}
	return nil
}

func describePods(pods []*corev1.Pod) string {
	var out []string
	for _, p := range pods {
		out = append(out, fmt.Sprintf("%s@%s rev=%s avail=%v", p.Name, p.Spec.NodeName, p.Labels["controller-revision-hash"], planner.IsAvailable(p, 0, now)))
	}
	return strings.Join(out, " ")
}

// An update in place takes a pod out of service too, so it keeps to the
// domain budget and order as a replacement does.
func TestTopologyHoldsUpdatesInPlaceToo(t *testing.T) {
	f := rollout(testgen.Replicas(6), testgen.Parallel(), testgen.MaxUnavailable(3))
	open := gate(corev1.ConditionTrue, testgen.Epoch)
	e := podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible)
	e.Topology = zoned(1).Topology
	observedOf(e).Domains = zoneNodes
	var pods []*corev1.Pod
	for ord := range int32(6) {
		pods = append(pods, f.pod(ord, open, zoneOf(ord)))
	}
	if got, want := f.summary(f.ext(e, pods...)), []string{"rolling update: PatchPodStatus web-3"}; !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v: one pod of zone a", got, want)
	}
	e.Topology = nil
	if got := f.summary(f.ext(e, pods...)); len(got) != 3 {
		t.Errorf("steps %v without topology, want three pods within maxUnavailable", got)
	}
}
