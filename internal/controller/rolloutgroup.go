package controller

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// groupRecheck is how often a set waiting for its rollout group's turn
// looks again without an event; a set that gives the turn back wakes the
// others of its group at once.
const groupRecheck = 5 * time.Second

// rolloutGroups is the controller's memory of the rollout groups' turns,
// by "namespace/group": the set that took the turn, from the sync that
// grants it until the sync that gives it back. It covers the moment the
// set's status, which records the turn for everyone else, is written but
// not yet in the cache: under its one lock no second set can take a turn
// a first one just took, whichever workers sync them.
type rolloutGroups struct {
	mu   sync.Mutex
	held map[string]string
}

// groupTurn judges an extended set's turn in its rollout group before it
// is planned (the plan holds its update without it), and how soon to look
// again while the set waits; nil without a group.
func (c *Controller) groupTurn(t *target, in planner.Input) (*planner.GroupTurn, time.Duration) {
	if t.inputs == nil || c.ext == nil {
		return nil, 0
	}
	s := t.extended
	g := osts.RolloutGroup(s)
	c.groups.mu.Lock()
	released := c.groups.releaseOthers(s.Namespace, s.Name, g)
	if g == "" {
		c.groups.mu.Unlock()
		c.wakeGroups(s.Namespace, released)
		return nil, 0
	}
	sets := c.groupSets(s)
	gk := s.Namespace + "/" + g
	claimed := c.groups.held[gk]
	if claimed != "" && !inGroup(sets, claimed, g) {
		claimed = "" // the set that took it is gone or left the group
	}
	// A hold in force rolls to its own revision: once there, the set has
	// nothing pending.
	pending := in.Current != nil && in.Update != nil && in.Current.Name != planner.RolloutTarget(t.inputs, in.Update.Name)
	turn := osts.GroupTurn(s, sets, pending, claimed)
	switch {
	case pending && (turn.Claim || turn.Holding):
		c.groups.held[gk] = s.Name
	case !pending && claimed == s.Name:
		delete(c.groups.held, gk)
		released = append(released, g)
	}
	c.groups.mu.Unlock()
	c.wakeGroups(s.Namespace, released)
	if pending && !turn.Holding {
		return turn, groupRecheck
	}
	return turn, 0
}

// releaseOthers gives back the turns set name holds in namespace in
// groups other than keep (it left them), and returns those groups.
func (g *rolloutGroups) releaseOthers(namespace, name, keep string) []string {
	var out []string
	for gk, holder := range g.held {
		ns, group := splitGroupKey(gk)
		if ns == namespace && holder == name && group != keep {
			delete(g.held, gk)
			out = append(out, group)
		}
	}
	return out
}

func splitGroupKey(gk string) (ns, group string) {
	for i := range len(gk) {
		if gk[i] == '/' {
			return gk[:i], gk[i+1:]
		}
	}
	return "", gk
}

// groupSets are the extended sets of s's namespace, each as the
// controller last stored it when the cache lags its own write.
func (c *Controller) groupSets(s *v1alpha1.StatefulSet) []*v1alpha1.StatefulSet {
	sets, err := c.ext.lister.List(s.Namespace, labels.Everything())
	if err != nil {
		return nil
	}
	for i, o := range sets {
		if o.Name == s.Name {
			sets[i] = s
			continue
		}
		sets[i] = c.storedExtended(setkind.Extended.Key(o.Namespace, o.Name), o)
	}
	return sets
}

func inGroup(sets []*v1alpha1.StatefulSet, name, group string) bool {
	for _, o := range sets {
		if o.Name == name && osts.RolloutGroup(o) == group {
			return true
		}
	}
	return false
}

// wakeGroups syncs the sets of the given groups of namespace again: a
// turn was given back.
func (c *Controller) wakeGroups(namespace string, groups []string) {
	if len(groups) == 0 {
		return
	}
	sets, err := c.ext.lister.List(namespace, labels.Everything())
	if err != nil {
		return
	}
	for _, o := range sets {
		for _, g := range groups {
			if osts.RolloutGroup(o) == g {
				c.enqueue(setkind.Extended.Key(o.Namespace, o.Name))
			}
		}
	}
}
