package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// podUIDs maps the namespace's pods by name to their UIDs.
func podUIDs(t *testing.T, ns string) map[string]types.UID {
	t.Helper()
	out := map[string]types.UID{}
	for _, p := range listPods(t, ns) {
		out[p.Name] = p.UID
	}
	return out
}

// podsAre accepts a set whose pods are exactly names, none terminating,
// and whose status counts that many ready, updated and available pods.
func podsAre(t *testing.T, ns string, names ...string) func(*v1alpha1.StatefulSet) error {
	return func(set *v1alpha1.StatefulSet) error {
		var got []string
		for _, p := range listPods(t, ns) {
			if p.DeletionTimestamp == nil {
				got = append(got, p.Name)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, names) {
			return fmt.Errorf("pods %v, want %v", got, names)
		}
		return extendedSettled(set)
	}
}

// keptUIDs fails t when a pod of want has another UID now.
func keptUIDs(t *testing.T, ns string, want map[string]types.UID, names ...string) {
	t.Helper()
	now := podUIDs(t, ns)
	for _, name := range names {
		if now[name] != want[name] {
			t.Errorf("%s was replaced: uid %s, was %s", name, now[name], want[name])
		}
	}
}

// Reserving the ordinal of a running pod, replicas unchanged: under
// OrderedReady the next free ordinal gets a pod first, and once it is
// Ready the reserved pod goes; the others are never touched.
func TestReserveARunningPodsOrdinalWithTheSameReplicas(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3))))
	waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	before := podUIDs(t, ns)
	mark := rec.Mark()
	patchExtended(t, ns, `{"spec":{"reserveOrdinals":[1]}}`)
	waitExtended(t, ns, time.Minute, "web-0, web-2 and web-3", podsAre(t, ns, "web-0", "web-2", "web-3"))
	keptUIDs(t, ns, before, "web-0", "web-2")
	want := []string{"ADDED web-3", "READY web-3", "TERMINATING web-1"}
	if got := typedNames(rec.Since(mark, evAdded, evReady, evTerminating)); !slices.Equal(got, want) {
		t.Errorf("events after the reservation: want %v, got %v", want, got)
	}
	consistently(t, 2*time.Second, "no new pod at the reserved ordinal", func() error {
		if uid, ok := podUIDs(t, ns)["web-1"]; ok && uid != before["web-1"] {
			return fmt.Errorf("web-1 was created again")
		}
		return nil
	})
}

// Reserving an ordinal while lowering replicas removes exactly that pod,
// and its claim follows whenScaled Delete.
func TestReserveWhileLoweringReplicasRemovesThatPod(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	del := appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	createExtended(t, asExtended(t, webSet(ns, replicas(3), withClaims(), retention(appsv1.RetainPersistentVolumeClaimRetentionPolicyType, del))))
	waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	before := podUIDs(t, ns)
	patchExtended(t, ns, `{"spec":{"replicas":2,"reserveOrdinals":["1-1"]}}`)
	waitExtended(t, ns, time.Minute, "web-0 and web-2", podsAre(t, ns, "web-0", "web-2"))
	keptUIDs(t, ns, before, "web-0", "web-2")
	waitFor(t, time.Minute, "www-web-1 deleted by the garbage collector", func() (bool, error) {
		_, ok := getClaim(t, ns, "www-web-1")
		return !ok, fmt.Errorf("claim www-web-1 still exists")
	})
	for _, claim := range []string{"www-web-0", "www-web-2"} {
		if c, ok := getClaim(t, ns, claim); !ok || c.DeletionTimestamp != nil {
			t.Errorf("claim %s of a kept pod is gone", claim)
		}
	}
}

// Lifting a reservation while raising replicas gives the ordinal its pod
// back and touches no other pod. (Lifting it alone moves the highest pod
// down to it: the set's ordinals are always the lowest free ones.)
func TestAnUnreservedOrdinalComesBackWhenReplicasGrow(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(2)), func(s *v1alpha1.StatefulSet) {
		s.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromString("1")}
	}))
	waitExtended(t, ns, time.Minute, "web-0 and web-2", podsAre(t, ns, "web-0", "web-2"))
	before := podUIDs(t, ns)
	patchExtended(t, ns, `{"spec":{"replicas":3,"reserveOrdinals":null}}`)
	waitExtended(t, ns, time.Minute, "web-0, web-1 and web-2", podsAre(t, ns, "web-0", "web-1", "web-2"))
	keptUIDs(t, ns, before, "web-0", "web-2")
}

// Values that are no ordinals are refused with the rule's message.
func TestInvalidReserveOrdinalsAreRefused(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	sets := extendedSets(t, ns)
	const message = `spec.reserveOrdinals entries must be ordinals (integers from 0 to 2147483647) or ranges "low-high" of them with low <= high, such as 5 or "5-7"`
	for name, v := range map[string]intstr.IntOrString{
		"a negative integer":                      intstr.FromInt32(-1),
		"a range whose low end is above its high": intstr.FromString("7-5"),
		"a word":           intstr.FromString("five"),
		"an open range":    intstr.FromString("5-"),
		"a negative range": intstr.FromString("-3-2"),
	} {
		t.Run(name, func(t *testing.T) {
			set := extended(t, webSet(ns))
			set.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromInt32(2), v}
			_, err := sets.Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if want := ruleError("spec.reserveOrdinals", message); err == nil || err.Error() != want {
				t.Errorf("\n got: %v\nwant: %s", err, want)
			}
		})
	}
	set := extended(t, webSet(ns))
	set.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromInt32(0), intstr.FromString("3"), intstr.FromString("5-7"), intstr.FromString("2147483647")}
	if _, err := sets.Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("valid reserveOrdinals refused: %v", err)
	}
}
