package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// target is the set one sync works on: the door of its kind, read from
// its key (setkind.ParseKey) once, through which every per-kind step of
// the sync goes (door.go); its apps/v1 view, which the planner and the pod control read (for an
// extended set, osts.View of it, whose type makes events and owner
// references name the extended kind); and, for an extended set, the
// object itself, the spec the planner reads beyond the view (built once,
// never changed) and what was observed around it before the sync.
type target struct {
	key      string
	door     kindDoor
	view     *appsv1.StatefulSet
	extended *v1alpha1.StatefulSet
	inputs   *planner.Extended
	observed planner.Observed
	// revisions says what the set's revisions hold beyond the template.
	revisions revision.Options
	// config is what this sync read of the objects whose data the set's
	// revisions hold (configrev.go); nil for a set without
	// spec.configRevisions.
	config *configResolution
}

// fresh reads the set from the API server, past the cache, for adoption's
// recheck.
func (c *Controller) fresh(ctx context.Context, set *appsv1.StatefulSet) (metav1.Object, error) {
	return doorOf(set).fresh(ctx, c, set)
}
