package rolloutview

import "github.com/ordinal-sh/ordinal/internal/planner"

// groupPlan says where the set stands in its rollout group (g, nil
// without one). A set that waits for its turn is held, which is not the
// user's pause.
func groupPlan(x *ExtendedPlan, g *planner.GroupTurn) {
	if g == nil {
		return
	}
	x.RolloutGroup = g.Name
	switch {
	case !g.Pending:
		x.GroupTurn = "nothing to roll out; the other sets of the group may update"
	case g.Holding:
		x.GroupTurn = "this set has the turn: its update runs, and the other sets of the group wait until it is done and Available"
	case g.Claim:
		x.GroupTurn = "this set takes the turn now; its update starts once its status records it"
	default:
		x.GroupTurn = "waiting for the turn: " + g.Wait
	}
}
