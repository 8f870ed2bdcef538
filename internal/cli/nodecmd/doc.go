// Package nodecmd is `ordinal node`: draining, cordoning and fencing a
// node as an administrator does on any cluster (drain, cordon, uncordon,
// fence, unfence), and rehearsing the loss of a node on the plane
// `ordinal up` runs (fail, restore, replace).
package nodecmd
