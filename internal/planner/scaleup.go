package planner

import "fmt"

// scaleUp is one plan's account of a Parallel scale-up under
// Extended.ScaleUpMaxUnavailable: how many pods of the range were
// unavailable when the replica pass began, how many pods it creates, and
// the missing ordinals it holds back.
type scaleUp struct {
	counted     bool
	unavailable int
	created     int
	held        int
	first       int32
}

// scaleUpHeld reports whether the replica pass must leave the missing
// ordinal ord alone: an extended Parallel set with
// scaleStrategy.maxUnavailable creates a missing pod only while fewer
// pods of its range than that are unavailable (observed pods that are
// not Available, a pod just created without a phase yet included, or
// terminating), counting the pods this plan creates.
// A held ordinal costs no placeholder, so a set of thousands held back
// plans as cheaply as one that is complete; the plan waits on the first
// held ordinal and says how many more there are (scaleUpWait). OrderedReady
// creates one pod at a time already and is never held here.
func (p *planner) scaleUpHeld(ord int32, observed *slot) bool {
	if observed != nil || p.ext == nil || p.ext.ScaleUpMaxUnavailable <= 0 || p.monotonic {
		return false
	}
	su := &p.scaleUp
	if !su.counted {
		su.counted = true
		for _, s := range p.replicas {
			if isUnavailable(s.pod, p.set.Spec.MinReadySeconds, p.in.Now) {
				su.unavailable++
			}
		}
	}
	if su.unavailable+su.created < p.ext.ScaleUpMaxUnavailable {
		su.created++
		return false
	}
	if su.held == 0 {
		su.first = ord
	}
	su.held++
	return true
}

// scaleUpWait explains the ordinals scaleUpHeld held back, once, on the
// first of them.
func (p *planner) scaleUpWait() {
	su := p.scaleUp
	if su.held == 0 {
		return
	}
	s := p.placeholder(su.first)
	more := ""
	if su.held > 1 {
		more = fmt.Sprintf(" and %d more missing pods", su.held-1)
	}
	p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf("scaleStrategy.maxUnavailable %d: %d pods are not yet available, so %s%s are created only as pods become available",
		p.ext.ScaleUpMaxUnavailable, su.unavailable+su.created, s.pod.Name, more),
		"If the new pods never become Ready, the template is broken: fix it (the pods already created show why: kubectl describe pod)."))
}
