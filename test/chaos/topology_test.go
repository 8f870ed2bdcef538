package chaos

import (
	"fmt"
	"math/rand"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// randomTopology gives a quarter of the rolling extended sets a rollout
// zone by zone over the plane's zones (a budget of 1 or 2 per zone, at
// times zone-1 first), and another quarter a partition counted in pods;
// the invariant checker judges them (domain-budget, domain-order,
// count-partition) under every fault. With all, every rolling set goes
// zone by zone.
func randomTopology(rng *rand.Rand, set *v1alpha1.StatefulSet, all bool) {
	ru := set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil {
		return
	}
	which := rng.Intn(4)
	if all {
		which = 0
	}
	switch which {
	case 0:
		top := &v1alpha1.RolloutTopology{Key: v1alpha1.DefaultTopologyKey, MaxUnavailablePerDomain: int32(1 + rng.Intn(2))}
		if rng.Intn(2) == 0 {
			top.Order = []string{"zone-1"}
		}
		ru.Topology = top
	case 1:
		ru.PartitionMode = v1alpha1.PartitionCount
	}
}

// describeTopology says what randomTopology chose.
func describeTopology(ru *v1alpha1.RollingUpdateStatefulSetStrategy) string {
	out := ""
	if t := ru.Topology; t != nil {
		out += fmt.Sprintf(", zone by zone (%d per zone, order %v)", t.MaxUnavailablePerDomain, t.Order)
	}
	if ru.PartitionMode == v1alpha1.PartitionCount {
		out += ", partition counted in pods"
	}
	return out
}
