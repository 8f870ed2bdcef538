package rollout

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// load parses the SET argument, connects and reads the set: "web" (the
// apps/v1 set, else the extended set of that name), "sts/web" or
// "statefulset/web" (apps/v1), "osts/web" or
// "statefulsets.apps.ordinal.dev/web" (the extended kind). Another kind
// is a usage error.
func (o *options) load(ctx context.Context, arg string) (*setops.Target, error) {
	ref, err := setops.ParseRef(arg)
	if err != nil {
		return nil, exit.Usage(err)
	}
	c, err := o.client()
	if err != nil {
		return nil, err
	}
	t, err := setops.Find(ctx, c.kube, c.ext, c.namespace, ref)
	if err != nil {
		return nil, classify(notInstalled(c, ref.Kind, err))
	}
	return t, nil
}

// notInstalled turns a NotFound from a request about the extended kind
// into a sentence saying so when the cluster does not serve the kind at
// all.
func notInstalled(c clients, kind setops.Kind, err error) error {
	if kind != setops.ExtendedKind || !apierrors.IsNotFound(err) {
		return err
	}
	if ok, derr := kubeclient.ExtendedInstalled(c.kube.Discovery()); derr != nil || ok {
		return err
	}
	return exit.With(NotFound, errors.New(extendedNotInstalled))
}

// extendedNotInstalled says that the cluster does not serve the extended
// kind.
const extendedNotInstalled = "this cluster does not serve statefulsets.apps.ordinal.dev (apps.ordinal.dev/v1alpha1): " +
	"install its CustomResourceDefinition (ordinal up does; see docs/install.md)"
