// Package nodeloss tests sets that lose a node, on a plane of their own
// whose node lifecycle controller marks a node NotReady 8s after its last
// heartbeat: failing, fencing, restoring and draining simulated nodes
// (ordinal node), upstream's recovery of a fenced node, and the extended
// kind's node-failure policy. Each test registers its own nodes, tainted
// so that only its pods go there.
package nodeloss
