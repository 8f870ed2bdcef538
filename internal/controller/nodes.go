package controller

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// watchNodes starts caching Nodes, whose labels give the pods of an
// extended set with rollingUpdate.topology their domain. A node's labels
// rarely change, and a pod's domain is read afresh on every sync, so no
// handler enqueues sets on node events.
func (c *Controller) watchNodes(factory informers.SharedInformerFactory) {
	inf := factory.Core().V1().Nodes()
	c.nodes = inf.Lister()
	c.synced = append(c.synced, inf.Informer().HasSynced)
}

// topologyNodes fills in the nodes' labels a set with topology plans
// from (osts.TopologyNodes); without a node cache they stay unknown and
// the plan holds the rolling update.
func (c *Controller) topologyNodes(ext *planner.Extended) {
	if ext == nil || ext.Topology == nil || c.nodes == nil {
		return
	}
	list, err := c.nodes.List(labels.Everything())
	if err != nil {
		return
	}
	osts.TopologyNodes(ext, list)
}
