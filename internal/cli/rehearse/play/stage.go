package play

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/shape"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/provisioner"
)

// Stage is the rehearsal's plane with the copy's cluster-wide objects.
type Stage struct {
	plane  *plane.Plane
	client kubernetes.Interface
	ext    *ostsclient.Client
	log    func(format string, args ...any)
}

// Options configure Start.
type Options struct {
	// Dir is where the plane keeps its data, in Dir/plane: a directory of
	// the caller's, which it removes.
	Dir string
	// Log receives a line per step for a person; nil discards them.
	Log func(format string, args ...any)
}

// Start starts a fresh plane on loopback only, with free ports, no
// simulated node of its own, no cluster DNS and no StatefulSet
// controller: each run attaches its contender to its own namespace.
func Start(ctx context.Context, o Options) (*Stage, error) {
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	cfg := plane.NewConfig()
	cfg.DataDir, cfg.Port, cfg.Nodes, cfg.Zones = filepath.Join(o.Dir, "plane"), 0, 0, 0
	cfg.StatefulSetController, cfg.DNSAddress, cfg.UnsafeNoFsync = plane.ControllerNone, "", true
	cfg.Log = func(format string, args ...any) { o.Log("plane: "+format, args...) }
	began := time.Now()
	p, err := plane.Start(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("starting the rehearsal's plane: %w", err)
	}
	o.Log("rehearsal plane up in %s (%s)", time.Since(began).Round(100*time.Millisecond), o.Dir)
	s := &Stage{plane: p, log: o.Log}
	if s.client, err = kubernetes.NewForConfig(p.RESTConfig()); err == nil {
		s.ext, err = kubeclient.ExtendedClient(p.RESTConfig())
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("rehearsal plane client: %w", err), s.Close())
	}
	return s, nil
}

// Close stops the plane.
func (s *Stage) Close() error { return s.plane.Close() }

// Err reports the plane's failures.
func (s *Stage) Err() <-chan error { return s.plane.Err() }

// NodeAnnotations are the mark of the copy's nodes, and Provisioner the
// plane's volumes', for shape.Shape.Copy.
var (
	NodeAnnotations = nodes.ManagedAnnotations
	Provisioner     = provisioner.DefaultName
)

// Prepare creates the copy's cluster-wide objects (nodes, classes,
// priorities) and the admission policy that gives each copied pod its
// learned timings, and waits for the nodes to be Ready.
func (s *Stage) Prepare(ctx context.Context, c shape.Copy) error {
	for _, n := range c.Nodes {
		if _, err := s.client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("copying node %s: %w", n.Name, err)
		}
	}
	for _, sc := range c.StorageClasses {
		if _, err := s.client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("copying StorageClass %s: %w", sc.Name, err)
		}
	}
	for _, pc := range c.PriorityClasses {
		if _, err := s.client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("copying PriorityClass %s: %w", pc.Name, err)
		}
	}
	if err := installTimings(ctx, s.client); err != nil {
		return err
	}
	s.log("copied %d nodes, %d storage classes; waiting for the nodes", len(c.Nodes), len(c.StorageClasses))
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := s.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		ready := 0
		for _, n := range list.Items {
			for _, cond := range n.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return ready == len(c.Nodes), nil
	})
}
