package controller

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// topologyNodes observes the nodes' domains a set with topology plans
// from (osts.Domains); without a node cache they stay unknown and the
// plan holds the rolling update.
func (c *Controller) topologyNodes(ext *planner.Extended, o *planner.Observed) {
	if ext == nil || ext.Topology == nil || c.nodeFacts == nil {
		return
	}
	list, err := c.nodeFacts.nodes.List(labels.Everything())
	if err != nil {
		return
	}
	osts.Domains(ext, o, list)
}
