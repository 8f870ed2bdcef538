package planner

// inPlaceExecutor is the rolling update under an in-place podUpdatePolicy:
// the outdated pods in the sorters' order, each brought to the update
// revision by updateOne once the round's turners say it is its turn.
type inPlaceExecutor struct{}

func (inPlaceExecutor) busy(*planner) []slot { return nil }

func (inPlaceExecutor) candidates(p *planner) ([]slot, bool) { return p.outdated(), true }

func (inPlaceExecutor) step(p *planner, r *round, s slot) ([]Action, bool) {
	return p.inTurnUpdateOne(r, s)
}
