package planner

import "fmt"

// StepRecreate is the step of the Recreate strategy's deletes.
const StepRecreate = "recreate"

// recreatePass is the Recreate update strategy (upstream 1.37's alpha
// KEP-3541) for the extended kind: while any pod runs an old revision, every
// such pod that is not already terminating is deleted, and no pod is
// created, so two revisions never run side by side. Once all are gone the
// usual passes create the pods at the update revision, in the order of the
// pod management policy. A paused set holds: nothing is deleted, and a
// missing pod comes back at the current revision. It reports whether it
// took the sync.
func (p *planner) recreatePass() bool {
	if p.ext == nil || !p.ext.Recreate || p.paused() {
		return false
	}
	var units [][]Action
	old := false
	for _, s := range append(append([]slot(nil), p.replicas...), p.condemned...) {
		if !isCreated(s.pod) || podRevision(s.pod) == p.update {
			continue
		}
		old = true
		if isTerminating(s.pod) {
			p.plan.Waits = append(p.plan.Waits, *p.waitOn(s,
				fmt.Sprintf("Recreate: pods are created at revision %s only once every pod of an old revision is gone", p.update), ""))
			continue
		}
		units = append(units, p.updateDelete(s, fmt.Sprintf("Recreate: %s runs old revision %s; every old pod goes before revision %s starts", s.pod.Name, podRevision(s.pod), p.update)))
	}
	p.addUnits(StepRecreate, units)
	return old
}
