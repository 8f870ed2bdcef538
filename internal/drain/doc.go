// Package drain drains and cordons a node as kubectl drain does: it
// cordons the node and asks every pod on it to go, through the Eviction
// API under every PodDisruptionBudget, or, where the API server serves
// them, with an EvictionRequest per pod (KEP-4563). `ordinal node
// drain`, the chaos suite and the benchmark's node-drain scenario use it.
package drain
