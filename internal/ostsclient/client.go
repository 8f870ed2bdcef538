package ostsclient

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Interface is the typed verbs on the extended StatefulSets of one
// namespace (all namespaces for List and Watch when the namespace is "").
type Interface interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*v1alpha1.StatefulSet, error)
	List(ctx context.Context, opts metav1.ListOptions) (*v1alpha1.StatefulSetList, error)
	// Watch delivers events whose objects are *v1alpha1.StatefulSet, or a
	// *metav1.Status for an Error event.
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Create(ctx context.Context, set *v1alpha1.StatefulSet, opts metav1.CreateOptions) (*v1alpha1.StatefulSet, error)
	// Update writes everything but the status; UpdateStatus writes only
	// the status (the API server ignores the other half of each).
	Update(ctx context.Context, set *v1alpha1.StatefulSet, opts metav1.UpdateOptions) (*v1alpha1.StatefulSet, error)
	UpdateStatus(ctx context.Context, set *v1alpha1.StatefulSet, opts metav1.UpdateOptions) (*v1alpha1.StatefulSet, error)
	// Patch applies a JSON, merge or apply patch (custom resources take no
	// strategic merge patch); subresources may name "status" or "scale".
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*v1alpha1.StatefulSet, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Client reaches the extended StatefulSets through a dynamic client.
type Client struct {
	dynamic dynamic.Interface
}

// New returns a Client using dyn.
func New(dyn dynamic.Interface) *Client { return &Client{dynamic: dyn} }

// NewForConfig returns a Client for cfg.
func NewForConfig(cfg *rest.Config) (*Client, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	return New(dyn), nil
}

// StatefulSets returns the verbs for namespace.
func (c *Client) StatefulSets(namespace string) Interface {
	return &sets{resource: c.dynamic.Resource(v1alpha1.Resource).Namespace(namespace)}
}

// Dynamic is the dynamic client underneath, for informers.
func (c *Client) Dynamic() dynamic.Interface { return c.dynamic }

type sets struct {
	resource dynamic.ResourceInterface
}

var _ Interface = (*sets)(nil)

func (s *sets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*v1alpha1.StatefulSet, error) {
	return typed(s.resource.Get(ctx, name, opts))
}

func (s *sets) List(ctx context.Context, opts metav1.ListOptions) (*v1alpha1.StatefulSetList, error) {
	ul, err := s.resource.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	return listFromUnstructured(ul)
}

func (s *sets) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := s.resource.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, typedEvent), nil
}

func (s *sets) Create(ctx context.Context, set *v1alpha1.StatefulSet, opts metav1.CreateOptions) (*v1alpha1.StatefulSet, error) {
	u, err := ToUnstructured(set)
	if err != nil {
		return nil, err
	}
	return typed(s.resource.Create(ctx, u, opts))
}

func (s *sets) Update(ctx context.Context, set *v1alpha1.StatefulSet, opts metav1.UpdateOptions) (*v1alpha1.StatefulSet, error) {
	u, err := ToUnstructured(set)
	if err != nil {
		return nil, err
	}
	return typed(s.resource.Update(ctx, u, opts))
}

func (s *sets) UpdateStatus(ctx context.Context, set *v1alpha1.StatefulSet, opts metav1.UpdateOptions) (*v1alpha1.StatefulSet, error) {
	u, err := ToUnstructured(set)
	if err != nil {
		return nil, err
	}
	return typed(s.resource.UpdateStatus(ctx, u, opts))
}

func (s *sets) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*v1alpha1.StatefulSet, error) {
	return typed(s.resource.Patch(ctx, name, pt, data, opts, subresources...))
}

func (s *sets) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return s.resource.Delete(ctx, name, opts)
}

// typed converts a dynamic call's result, passing its error through
// untouched so that apierrors.IsNotFound and the like still work.
func typed(u *unstructured.Unstructured, err error) (*v1alpha1.StatefulSet, error) {
	if err != nil {
		return nil, err
	}
	return FromUnstructured(u)
}

// typedEvent converts a watch event's object. An Error event carries a
// *metav1.Status; an object that does not convert becomes an Error event
// saying why, as a decoding failure would.
func typedEvent(e watch.Event) (watch.Event, bool) {
	u, ok := e.Object.(*unstructured.Unstructured)
	if !ok {
		return e, true
	}
	if e.Type == watch.Error {
		e.Object = statusOf(u)
		return e, true
	}
	set, err := FromUnstructured(u)
	if err != nil {
		status := apierrors.NewInternalError(err).Status()
		return watch.Event{Type: watch.Error, Object: &status}, true
	}
	e.Object = set
	return e, true
}

func statusOf(u *unstructured.Unstructured) *metav1.Status {
	status := &metav1.Status{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), status); err != nil {
		internal := apierrors.NewInternalError(fmt.Errorf("decoding a watch error: %w", err)).Status()
		return &internal
	}
	return status
}
