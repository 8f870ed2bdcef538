package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes"
)

// harnessParallelism bounds the harness's own concurrent writes.
const harnessParallelism = 16

// harness is the benchmark driver's view of one run.
type harness struct {
	client     kubernetes.Interface
	kubeconfig string
	sets       setWriter // the contender's kind
	namespace  string
	obs        *observer
	alive      func() error // non-nil error once a process under test died
	// stepTimeout bounds a step's own waits (Config.StepTimeout).
	stepTimeout time.Duration
	// drain is the node-drain scenario's choice of nodes and its drain's
	// evictions (nodedrain.go); nil in every other scenario.
	drain *drainRun

	mu   sync.Mutex
	want map[string]desiredSet
}

func (h *harness) setWant(name string, d desiredSet, keep bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if keep {
		h.want[name] = d
	} else {
		delete(h.want, name)
	}
}

func (h *harness) snapshotWant() map[string]desiredSet {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]desiredSet, len(h.want))
	for k, v := range h.want {
		out[k] = v
	}
	return out
}

func (h *harness) setNames() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.want))
	for k := range h.want {
		out = append(out, k)
	}
	return out
}

// forEach runs f over names with bounded parallelism and joins the errors.
func forEach(names []string, f func(name string) error) error {
	sem := make(chan struct{}, harnessParallelism)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for _, n := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(n); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

func createSets(specs ...setSpec) func(context.Context, *harness) error {
	return func(ctx context.Context, h *harness) error {
		byName := map[string]setSpec{}
		names := make([]string, 0, len(specs))
		for _, s := range specs {
			byName[s.name] = s
			names = append(names, s.name)
			h.setWant(s.name, desiredSet{Replicas: s.replicas, Image: imageV1}, true)
		}
		return forEach(names, func(name string) error {
			w := h.sets
			if byName[name].ownBudget {
				w = withOwnBudget(w)
			}
			if err := w.create(ctx, h.namespace, statefulSet(byName[name])); err != nil {
				return fmt.Errorf("creating statefulset %s: %w", name, err)
			}
			return nil
		})
	}
}

// mutateAll applies change to every set and to the harness's expectation.
func mutateAll(ctx context.Context, h *harness, change func(*appsv1.StatefulSet, *desiredSet)) error {
	want := h.snapshotWant()
	return forEach(h.setNames(), func(name string) error {
		d := want[name]
		change(nil, &d)
		h.setWant(name, d, true)
		err := h.sets.change(ctx, h.namespace, name, func(ss *appsv1.StatefulSet) { change(ss, nil) })
		if err != nil {
			return fmt.Errorf("updating statefulset %s: %w", name, err)
		}
		return nil
	})
}

func scaleAll(replicas int32) func(context.Context, *harness) error {
	return func(ctx context.Context, h *harness) error {
		return mutateAll(ctx, h, func(ss *appsv1.StatefulSet, d *desiredSet) {
			if d != nil {
				d.Replicas = replicas
			}
			if ss != nil {
				ss.Spec.Replicas = &replicas
			}
		})
	}
}

func updateImageAll(image string) func(context.Context, *harness) error {
	return func(ctx context.Context, h *harness) error {
		return mutateAll(ctx, h, func(ss *appsv1.StatefulSet, d *desiredSet) {
			if d != nil {
				d.Image = image
			}
			if ss != nil {
				ss.Spec.Template.Spec.Containers[0].Image = image
			}
		})
	}
}

// deleteAll deletes every set in the background; the garbage collector
// removes their pods, as it does for kube-controller-manager.
func deleteAll() func(context.Context, *harness) error {
	return func(ctx context.Context, h *harness) error {
		names := h.setNames()
		for _, n := range names {
			h.setWant(n, desiredSet{}, false)
		}
		return forEach(names, func(name string) error {
			if err := h.sets.delete(ctx, h.namespace, name); err != nil {
				return fmt.Errorf("deleting statefulset %s: %w", name, err)
			}
			return nil
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
