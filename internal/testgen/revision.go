package testgen

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/internal/revision"
)

// RevisionOf builds the ControllerRevision set's template maps to, numbered
// number, with collision count 0. It panics if the set cannot be encoded,
// which cannot happen for a typed StatefulSet.
func RevisionOf(set *appsv1.StatefulSet, number int64) *appsv1.ControllerRevision {
	rev, err := revision.New(set, number, nil)
	if err != nil {
		panic(fmt.Sprintf("testgen: building revision of %s: %v", set.Name, err))
	}
	return rev
}
