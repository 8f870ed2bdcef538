// Package nodecmd is `ordinal node`: rehearsing the loss of a node on the
// plane `ordinal up` runs (fail, restore) and fencing a node as an
// administrator does on any cluster (fence, unfence).
package nodecmd
