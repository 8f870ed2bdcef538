package provisioner

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"
)

// timeout bounds every wait; the shared CI machine can be slow, and a
// wait that succeeds returns as soon as it does.
const timeout = 30 * time.Second

// harness runs a Provisioner against a fake clientset and a temporary root.
type harness struct {
	t      *testing.T
	client *fake.Clientset
	root   string
	events *record.FakeRecorder

	mu    sync.Mutex
	syncs map[item]int
	stop  func()
}

// newHarness makes the clientset (holding objs and the default class) and
// the root; start runs a provisioner on them.
func newHarness(t *testing.T, objs ...runtime.Object) *harness {
	t.Helper()
	objs = append(objs, newStorageClass(Config{}.withDefaults()))
	return &harness{
		t:      t,
		client: fake.NewClientset(objs...),
		root:   filepath.Join(t.TempDir(), "volumes"),
		events: record.NewFakeRecorder(1000),
		syncs:  map[item]int{},
	}
}

// start runs a provisioner until the test ends (or stop is called) and
// returns once its caches have synced, so what the test creates afterwards
// reaches it as a watch event.
func (h *harness) start() *Provisioner {
	h.t.Helper()
	p, err := New(Config{Client: h.client, Root: h.root, Recorder: h.events})
	if err != nil {
		h.t.Fatalf("New: %v", err)
	}
	p.afterSync = func(it item, _ error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.syncs[it]++
	}
	// Logs go through t.Log: shown for a failing test only.
	_, ctx := ktesting.NewTestContext(h.t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var once sync.Once
	h.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					h.t.Errorf("Run: %v", err)
				}
			case <-time.After(timeout):
				h.t.Errorf("Run did not return after cancel")
			}
		})
	}
	h.t.Cleanup(h.stop)
	select {
	case <-p.ready:
	case err := <-done:
		h.t.Fatalf("Run returned before it was ready: %v", err)
	case <-time.After(timeout):
		h.t.Fatalf("provisioner not ready after %v", timeout)
	}
	return p
}

func (h *harness) syncCount(it item) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.syncs[it]
}

// waitSynced waits until it has been synced more than after times: a sync
// that started after the change the test just made, since changes requeue.
func (h *harness) waitSynced(it item, after int) {
	h.t.Helper()
	h.poll("item "+it.name+" to be synced", func(context.Context) (bool, error) {
		return h.syncCount(it) > after, nil
	})
}

func (h *harness) poll(what string, cond wait.ConditionWithContextFunc) {
	h.t.Helper()
	err := wait.PollUntilContextTimeout(h.t.Context(), 10*time.Millisecond, timeout, true, cond)
	if err != nil {
		h.t.Fatalf("waiting for %s: %v", what, err)
	}
}

func (h *harness) createClaim(c *corev1.PersistentVolumeClaim) {
	h.t.Helper()
	if _, err := h.client.CoreV1().PersistentVolumeClaims(c.Namespace).Create(h.t.Context(), c, metav1.CreateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) createVolume(pv *corev1.PersistentVolume) {
	h.t.Helper()
	if _, err := h.client.CoreV1().PersistentVolumes().Create(h.t.Context(), pv, metav1.CreateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// waitVolume waits for the volume to exist and returns it.
func (h *harness) waitVolume(name string) *corev1.PersistentVolume {
	h.t.Helper()
	var pv *corev1.PersistentVolume
	h.poll("volume "+name, func(ctx context.Context) (bool, error) {
		got, err := h.client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		pv = got
		return err == nil, err
	})
	return pv
}

func (h *harness) volumeExists(name string) bool {
	h.t.Helper()
	_, err := h.client.CoreV1().PersistentVolumes().Get(h.t.Context(), name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		h.t.Fatal(err)
	}
	return err == nil
}

// waitEvent waits for an event whose "type reason message" text contains
// want, and returns it; events before it are dropped.
func (h *harness) waitEvent(want string) string {
	h.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case e := <-h.events.Events:
			if strings.Contains(e, want) {
				return e
			}
		case <-deadline:
			h.t.Fatalf("no event containing %q within %v", want, timeout)
		}
	}
}

// setPhase stands in for the PersistentVolume controller, which sets a
// volume's phase in the plane.
func (h *harness) setPhase(name string, phase corev1.PersistentVolumePhase) {
	h.t.Helper()
	pv, err := h.client.CoreV1().PersistentVolumes().Get(h.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	pv.Status.Phase = phase
	if _, err := h.client.CoreV1().PersistentVolumes().UpdateStatus(h.t.Context(), pv, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

func claimKey(c *corev1.PersistentVolumeClaim) item {
	return item{kind: claimItem, namespace: c.Namespace, name: c.Name}
}

func volumeKey(name string) item { return item{kind: volumeItem, name: name} }
