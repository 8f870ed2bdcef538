package forecast

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// BudgetNeeds is how many of replicas pods a PodDisruptionBudget wants
// healthy: its minAvailable, or replicas less its maxUnavailable, a
// percentage of replicas rounded up as the disruption controller rounds
// it.
func BudgetNeeds(minAvailable, maxUnavailable *intstr.IntOrString, replicas int) (int, error) {
	switch {
	case minAvailable != nil:
		n, err := intstr.GetScaledValueFromIntOrPercent(minAvailable, replicas, true)
		if err != nil {
			return 0, fmt.Errorf("minAvailable %s: %w", minAvailable, err)
		}
		return n, nil
	case maxUnavailable != nil:
		n, err := intstr.GetScaledValueFromIntOrPercent(maxUnavailable, replicas, true)
		if err != nil {
			return 0, fmt.Errorf("maxUnavailable %s: %w", maxUnavailable, err)
		}
		return max(0, replicas-n), nil
	}
	return 0, nil
}

// CheckBudget is a budget that wants needs Ready pods, judged on a run's
// counts up to end.
func CheckBudget(name string, needs int, counts []Count, end time.Duration) Budget {
	ready, _ := Fewest(counts, end)
	return Budget{Name: name, Needs: needs, MinHealthy: ready, Below: Seconds(Below(counts, needs, end))}
}
