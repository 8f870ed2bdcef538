package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/invariant"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// spreadOverZones makes the scheduler place the pods evenly over the
// plane's zones (one node each), so a pod replaced by the rolling update
// comes back in its zone.
func spreadOverZones(s *v1alpha1.StatefulSet) {
	s.Spec.Template.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: nodes.ZoneLabel, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
	}}
}

// podZones maps each pod of ns to its node's zone.
func podZones(t *testing.T, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range listPods(t, ns) {
		n, err := client.CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("node of %s: %v", p.Name, err)
		}
		out[p.Name] = n.Labels[nodes.ZoneLabel]
	}
	return out
}

// A set of six pods over three zones, with topology order zone-2, zone-0
// and a budget of two per zone, rolls zone by zone: both pods of zone-2,
// then both of zone-0, then zone-1 (not listed), each zone once the one
// before is updated and Available. The invariant checker of the
// namespace judges every delete against the zone budget and order
// (domain-budget, domain-order).
func TestTopologyRollsZoneByZoneWithinTheZoneBudget(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(6), parallel(), maxUnavailable(3)), spreadOverZones, func(s *v1alpha1.StatefulSet) {
		rollingUpdateOf(s).Topology = &v1alpha1.RolloutTopology{MaxUnavailablePerDomain: 2, Order: []string{"zone-2", "zone-0"}}
	}))
	waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)
	zones := podZones(t, ns)
	perZone := map[string]int{}
	for _, z := range zones {
		perZone[z]++
	}
	if len(perZone) != 3 || perZone["zone-0"] != 2 || perZone["zone-1"] != 2 || perZone["zone-2"] != 2 {
		t.Fatalf("pods per zone %v, want two in each of zone-0, zone-1, zone-2", perZone)
	}

	// The checker judges a delete only against pods it saw Available for
	// its whole window (the most a controller's view may lag).
	settled := rec.Mark()
	consistently(t, invariant.DefaultWindow+time.Second, "no pod goes before the rollout", func() error {
		if gone := rec.Since(settled, evTerminating, evDeleted); len(gone) > 0 {
			return fmt.Errorf("pods went without a template change: %v", gone)
		}
		return nil
	})
	mark := rec.Mark()
	old := rollTo(t, ns, imageNew)
	waitExtended(t, ns, time.Minute, "the rollout complete", extendedSettled)
	gone := deletionOrder(rec, mark, old)
	var got []string
	for _, name := range gone {
		got = append(got, zones[name])
	}
	want := []string{"zone-2", "zone-2", "zone-0", "zone-0", "zone-1", "zone-1"}
	if !slices.Equal(got, want) {
		t.Errorf("pods went in zones %v (%v), want %v", got, gone, want)
	}
	if after := podZones(t, ns); fmt.Sprint(after) != fmt.Sprint(zones) {
		t.Errorf("pods in zones %v after the rollout, want each back in its zone %v", after, zones)
	}
}

// A Count partition of 1 with the primary last keeps the primary, web-1,
// at the old revision, and updates web-0 below it; with ordinal 2
// reserved the set's ordinals are 0, 1, 3 and 4, and the partition counts
// pods, not ordinals. Lowering the partition to 0 updates the primary.
func TestACountPartitionKeepsThePrimaryAtTheOldRevision(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(4)), primaryLast, func(s *v1alpha1.StatefulSet) {
		ru := rollingUpdateOf(s)
		ru.Partition, ru.PartitionMode = ptr(int32(1)), v1alpha1.PartitionCount
		s.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromInt32(2)}
	}))
	waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)
	setRole(t, ns, "web-1", "primary")
	primaryUID := podUID(t, ns, "web-1")

	mark := rec.Mark()
	old := rollTo(t, ns, imageNew)
	waitExtended(t, ns, time.Minute, "the partition reached", func(s *v1alpha1.StatefulSet) error {
		if c := condition(s, v1alpha1.ConditionProgressing); c.Reason != "PartitionRolledOut" {
			return fmt.Errorf("Progressing %s: %s", c.Reason, c.Message)
		}
		if s.Status.UpdatedReplicas != 3 || s.Status.CurrentReplicas != 1 || s.Status.AvailableReplicas != 4 {
			return fmt.Errorf("updated %d, current %d, available %d; want 3, 1 and 4", s.Status.UpdatedReplicas, s.Status.CurrentReplicas, s.Status.AvailableReplicas)
		}
		return nil
	})
	if got, want := deletionOrder(rec, mark, old), []string{"web-4", "web-3", "web-0"}; !slices.Equal(got, want) {
		t.Errorf("pods went in order %v, want %v", got, want)
	}
	if uid := podUID(t, ns, "web-1"); uid != primaryUID {
		t.Errorf("the primary web-1 was replaced (uid %s, was %s); the Count partition keeps it", uid, primaryUID)
	}

	patchExtended(t, ns, `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}`)
	waitExtended(t, ns, time.Minute, "the rollout complete", extendedSettled)
	if got, want := deletionOrder(rec, mark, old), []string{"web-4", "web-3", "web-0", "web-1"}; !slices.Equal(got, want) {
		t.Errorf("pods went in order %v, want %v", got, want)
	}
}

func podUID(t *testing.T, ns, name string) string {
	t.Helper()
	p, err := client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting %s: %v", name, err)
	}
	return string(p.UID)
}

// A topology or partition mode the API server refuses gets a message that
// names the field and says what is wrong.
func TestInvalidTopologiesAndPartitionModesAreRefused(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	sets := extendedSets(t, ns)
	topology := func(top v1alpha1.RolloutTopology) func(*v1alpha1.StatefulSet) {
		return func(s *v1alpha1.StatefulSet) { rollingUpdateOf(s).Topology = &top }
	}
	const (
		order = "spec.updateStrategy.rollingUpdate.topology.order must not list a domain twice"
		key   = "spec.updateStrategy.rollingUpdate.topology.key must be a node label key, such as topology.kubernetes.io/zone"
	)
	for _, c := range []invalidCase{
		{"a domain listed twice", topology(v1alpha1.RolloutTopology{Order: []string{"zone-a", "zone-b", "zone-a"}}),
			ruleError("spec.updateStrategy.rollingUpdate.topology.order", order)},
		{"a budget per domain under 1", topology(v1alpha1.RolloutTopology{MaxUnavailablePerDomain: -1}),
			schemaErrors("spec.updateStrategy.rollingUpdate.topology.maxUnavailablePerDomain: Invalid value: -1: spec.updateStrategy.rollingUpdate.topology.maxUnavailablePerDomain in body should be greater than or equal to 1")},
		{"a key that is no label key", topology(v1alpha1.RolloutTopology{Key: "zone?"}),
			ruleError("spec.updateStrategy.rollingUpdate.topology.key", `"zone?": `+key)},
		{"a key with an empty prefix", topology(v1alpha1.RolloutTopology{Key: "/zone"}),
			ruleError("spec.updateStrategy.rollingUpdate.topology.key", `"/zone": `+key)},
		{"an unknown partition mode", func(s *v1alpha1.StatefulSet) { rollingUpdateOf(s).PartitionMode = "Pods" },
			schemaErrors(`spec.updateStrategy.rollingUpdate.partitionMode: Unsupported value: "Pods": supported values: "Ordinal", "Count"`, notChecked)},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := extended(t, webSet(ns))
			c.mutate(set)
			_, err := sets.Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil {
				t.Fatal("accepted")
			}
			if err.Error() != c.want && !sameCauses(err, c.want) {
				t.Errorf("\n got: %s\nwant: %s", err, c.want)
			}
		})
	}
}
