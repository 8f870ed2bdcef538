package controller

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// topologyNodes fills in the nodes' labels a set with topology plans
// from (osts.TopologyNodes); without a node cache they stay unknown and
// the plan holds the rolling update.
func (c *Controller) topologyNodes(ext *planner.Extended) {
	if ext == nil || ext.Topology == nil || c.nodeFacts == nil {
		return
	}
	list, err := c.nodeFacts.nodes.List(labels.Everything())
	if err != nil {
		return
	}
	osts.TopologyNodes(ext, list)
}
