package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ordinal-sh/ordinal/internal/drain"
)

// The node-drain scenario drains a node that holds one member of each of
// its sets, every set keeping at least all but one member Ready:
//
//  1. setup: all nodes but as many as a set has replicas are cordoned,
//     the sets are created with their members on nodes of their own
//     (setSpec.spreadHosts), and the other nodes are uncordoned, so that
//     each set has one member on the drained node and a free node is
//     left for it;
//  2. setup: each set gets a budget of one pod: an apps/v1 set a
//     PodDisruptionBudget written by hand, an extended set its own
//     (spec.disruptionBudget); the setup ends once every budget allows
//     one eviction;
//  3. measured: an apps/v1 set's member goes by the drain's eviction, as
//     with kubectl drain; an extended set moves its member itself once
//     the node is cordoned (nodeDrainPolicy Move), and the drain that
//     follows finds nothing of it. The step ends when every set is back
//     to all its members Ready, none on the drained node.

// Sizes of the node-drain scenario.
const (
	nodeDrainSets        = 20
	nodeDrainSetReplicas = 3
)

func nodeDrainScenario(s Sizes) scenario {
	sets, r := orDefault(s.Sets, nodeDrainSets), orDefault(s.SetReplicas, nodeDrainSetReplicas)
	specs := manySpecs(sets, setSpec{replicas: r, spreadHosts: true, ownBudget: true})
	return scenario{name: ScenarioNodeDrain, size: fmt.Sprintf("%d×%d", sets, r), drain: true,
		setup: []step{{"hold-nodes", holdNodes(int(r))}, {"create", createSets(specs...)},
			{"free-a-node", freeNodes()}, {"budgets", keepBudgets()}},
		measured: []step{{"drain", drainTheNode()}}}
}

// nodeDrainNodes is how many nodes the scenario needs for sets of
// setReplicas (0: the default): one per member, and one free.
func nodeDrainNodes(setReplicas int32) int {
	return int(orDefault(setReplicas, nodeDrainSetReplicas)) + 1
}

// drainRun is one node-drain run's nodes and drain.
type drainRun struct {
	node    string   // the drained node, holding one member of every set
	spare   []string // cordoned while the sets were placed, then free
	evictor *evictor
	// moved is, for the extended kind, the time from the cordon until
	// every set had moved its member off the node.
	moved time.Duration
}

// pickNodes chooses, among the nodes called names, the node to drain
// (the first that holds no pod outside the benchmark's namespace, so
// that the drain evicts only the sets' pods), open-1 more that stay open
// while the sets are placed, and the spare ones, cordoned meanwhile.
func pickNodes(names []string, busy map[string]bool, open int) (drained string, spare []string, err error) {
	if len(names) < open+1 {
		return "", nil, fmt.Errorf("%d nodes: the scenario needs %d, one per member of a set and one free (--nodes)", len(names), open+1)
	}
	sorted := slices.Sorted(slices.Values(names))
	i := slices.IndexFunc(sorted, func(n string) bool { return !busy[n] })
	if i < 0 {
		return "", nil, fmt.Errorf("every node holds a pod outside namespace %s: none to drain", benchNamespace)
	}
	drained = sorted[i]
	others := slices.Delete(sorted, i, i+1)
	return drained, others[open-1:], nil
}

// holdNodes picks the nodes (pickNodes) and cordons the spare ones.
func holdNodes(open int) func(context.Context, *harness) error {
	return func(ctx context.Context, h *harness) error {
		nodeList, err := h.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing nodes: %w", err)
		}
		pods, err := h.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing pods: %w", err)
		}
		var names []string
		for _, n := range nodeList.Items {
			names = append(names, n.Name)
		}
		busy := map[string]bool{}
		for _, p := range pods.Items {
			if p.Namespace != h.namespace && p.Spec.NodeName != "" {
				busy[p.Spec.NodeName] = true
			}
		}
		drained, spare, err := pickNodes(names, busy, open)
		if err != nil {
			return err
		}
		ev, err := newEvictor(h.kubeconfig)
		if err != nil {
			return err
		}
		h.drain = &drainRun{node: drained, spare: spare, evictor: ev}
		for _, n := range spare {
			if err := drain.Cordon(ctx, h.client, n); err != nil {
				return err
			}
		}
		return nil
	}
}

// freeNodes uncordons the spare nodes once the sets are placed, and
// checks that every set has exactly one member on the drained node.
func freeNodes() func(context.Context, *harness) error {
	return func(ctx context.Context, h *harness) error {
		if why := placement(h.obs.pods(), h.snapshotWant(), h.drain.node); why != "" {
			return fmt.Errorf("the sets are not placed for the drain: %s", why)
		}
		for _, n := range h.drain.spare {
			if err := drain.Uncordon(ctx, h.client, n); err != nil {
				return err
			}
		}
		return nil
	}
}

// placement says which set of want does not have exactly one pod on
// node, or "".
func placement(pods []*corev1.Pod, want map[string]desiredSet, node string) string {
	on := map[string]int{}
	for _, p := range pods {
		if p.Spec.NodeName == node {
			on[p.Labels[setLabel]]++
		}
	}
	var bad []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if on[name] != 1 {
			bad = append(bad, fmt.Sprintf("set %s has %d pods on node %s, want 1", name, on[name], node))
		}
	}
	return strings.Join(bad, "; ")
}

// keepBudgets gives every apps/v1 set a PodDisruptionBudget of one pod,
// written by hand (an extended set keeps its own), and waits until every
// set's budget allows one eviction.
func keepBudgets() func(context.Context, *harness) error {
	return func(ctx context.Context, h *harness) error {
		pdbs := h.client.PolicyV1().PodDisruptionBudgets(h.namespace)
		if !extendedKind(h.sets) {
			err := forEach(h.setNames(), func(name string) error {
				if _, err := pdbs.Create(ctx, handBudget(name), metav1.CreateOptions{}); err != nil {
					return fmt.Errorf("creating PodDisruptionBudget %s: %w", name, err)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		var why string
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, h.stepTimeout, true, func(ctx context.Context) (bool, error) {
			if err := h.alive(); err != nil {
				return false, err
			}
			list, err := pdbs.List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, fmt.Errorf("listing PodDisruptionBudgets: %w", err)
			}
			why = budgetsReady(list.Items, h.snapshotWant())
			return why == "", nil
		})
		if err != nil {
			return fmt.Errorf("waiting for the budgets: %w (%s)", err, why)
		}
		return nil
	}
}

// handBudget is the PodDisruptionBudget a user writes beside an apps/v1
// set: one pod at most unavailable, selecting the set's pods.
func handBudget(set string) *policyv1.PodDisruptionBudget {
	one := intstr.FromInt32(1)
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: set},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{setLabel: set}}},
	}
}

// budgetsReady says which set of want has no budget named after it that
// the disruption controller has judged to allow exactly one eviction of
// all its members healthy, or "".
func budgetsReady(pdbs []policyv1.PodDisruptionBudget, want map[string]desiredSet) string {
	byName := map[string]policyv1.PodDisruptionBudget{}
	for _, p := range pdbs {
		byName[p.Name] = p
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		p, ok := byName[name]
		switch {
		case !ok:
			return "no PodDisruptionBudget " + name
		case p.Status.ObservedGeneration < p.Generation:
			return "PodDisruptionBudget " + name + " not judged yet"
		case p.Status.CurrentHealthy != want[name].Replicas || p.Status.DisruptionsAllowed != 1:
			return fmt.Sprintf("PodDisruptionBudget %s has %d healthy and allows %d disruptions, want %d and 1",
				name, p.Status.CurrentHealthy, p.Status.DisruptionsAllowed, want[name].Replicas)
		}
	}
	return ""
}

// drainTheNode is the measured step: no set may keep a pod on the drained
// node. An extended set's node is cordoned first and its members move
// before the drain (docs/drains.md); an apps/v1 set's go by the drain.
func drainTheNode() func(context.Context, *harness) error {
	return func(ctx context.Context, h *harness) error {
		d := h.drain
		h.avoidNode(d.node)
		if extendedKind(h.sets) {
			began := time.Now()
			if err := drain.Cordon(ctx, h.client, d.node); err != nil {
				return err
			}
			if err := h.obs.waitConverged(ctx, h.snapshotWant(), h.stepTimeout, h.alive); err != nil {
				return fmt.Errorf("moving the members off node %s: %w", d.node, err)
			}
			d.moved = time.Since(began)
		}
		return d.evictor.drain(ctx, d.node, h.stepTimeout)
	}
}

// avoidNode makes every set's end state keep its pods off node.
func (h *harness) avoidNode(node string) {
	for name, d := range h.snapshotWant() {
		d.AvoidNode = node
		h.setWant(name, d, true)
	}
}
