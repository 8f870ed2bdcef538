package controller

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/podcall"
)

// writes returns the verb and resource of every mutating request the fake
// client received, in order, as "create pods", "patch persistentvolumeclaims", …;
// events, which the recorder writes in the background, are left out.
func writes(client *fake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		if a.GetResource().Resource == "events" {
			continue
		}
		switch a.GetVerb() {
		case "create", "update", "patch", "delete":
			res := a.GetResource().Resource
			if sub := a.GetSubresource(); sub != "" {
				res += "/" + sub
			}
			out = append(out, a.GetVerb()+" "+res)
		}
	}
	return out
}

// failing makes the fake client fail verb on resource for objects named
// name ("" for any) with err.
func failing(client *fake.Clientset, verb, resource, name string, err error) {
	client.PrependReactor(verb, resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
		if name == "" {
			return true, nil, err
		}
		switch a := a.(type) {
		case k8stesting.CreateAction:
			if obj, ok := a.GetObject().(interface{ GetName() string }); ok && obj.GetName() == name {
				return true, nil, err
			}
		case k8stesting.DeleteAction:
			if a.GetName() == name {
				return true, nil, err
			}
		}
		return false, nil, nil
	})
}

// likeAnAPIServer makes the fake client fill in on pod create what an API
// server does: a UID and phase Pending. Without a phase the planner takes a
// pod for one not created yet (upstream's isCreated) and creates it again.
func likeAnAPIServer(client *fake.Clientset) *fake.Clientset {
	var n atomic.Int64
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if pod, ok := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod); ok {
			pod.UID = types.UID(fmt.Sprintf("pod-uid-%d", n.Add(1)))
			if pod.Status.Phase == "" {
				pod.Status.Phase = corev1.PodPending
			}
		}
		return false, nil, nil
	})
	return client
}

// newTestPodControl is the real pod control on a fake client, with a fake
// recorder whose events the test can read.
func newTestPodControl(objs ...runtime.Object) (*apiPodControl, *fake.Clientset, *record.FakeRecorder, *expectations) {
	client := fake.NewClientset(objs...)
	rec := record.NewFakeRecorder(100)
	exp := newExpectations(&memories{}, time.Now)
	return &apiPodControl{client: client, recorder: rec, exp: exp}, client, rec, exp
}

// events drains what the fake recorder holds.
func events(rec *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// newTestController is the whole controller on a fake client holding objs,
// with its informers started and synced; the queue is not run, so a test
// calls sync itself.
func newTestController(t testing.TB, objs ...runtime.Object) (*Controller, *fake.Clientset) {
	t.Helper()
	return newTestControllerWith(t, Options{Workers: 1}, nil, objs...)
}

// newTestControllerWith is newTestController with opts, and setup (when
// not nil) run on the controller before its informers start.
func newTestControllerWith(t testing.TB, opts Options, setup func(*Controller), objs ...runtime.Object) (*Controller, *fake.Clientset) {
	t.Helper()
	client := likeAnAPIServer(fake.NewClientset(objs...))
	return startController(t, client, opts, setup), client
}

// startController makes the controller on client with opts, runs setup
// (when not nil) on it, and starts and syncs its informers, the extended
// kind's too when opts has its client; the queue is not run.
func startController(t testing.TB, client *fake.Clientset, opts Options, setup func(*Controller)) *Controller {
	t.Helper()
	factory := NewInformerFactory(client, "")
	c, err := New(client, factory, opts)
	if err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
		c.events.Shutdown()
		c.queue.ShutDown()
	})
	factory.Start(ctx.Done())
	if c.ext != nil {
		go c.ext.informer.Run(ctx.Done())
	}
	if c.nodeWatch != nil {
		go c.nodeWatch.run(ctx)
	}
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		t.Fatal("informer caches did not sync")
	}
	return c
}

// waitCached waits until the controller's caches show obj's latest
// version, as an informer event would before a sync.
func waitCached(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("the cache never showed %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// forgettingCaller is a podcall.Caller that makes no call and records the
// sets it is told to forget.
type forgettingCaller struct {
	forgot []string
}

var _ podcall.Caller = (*forgettingCaller)(nil)

func (*forgettingCaller) StartHook(context.Context, string, planner.Action) {}

func (*forgettingCaller) EnsureRoleProbe(context.Context, string, *v1alpha1.StatefulSet) {}

func (f *forgettingCaller) Forget(setKey string) { f.forgot = append(f.forgot, setKey) }
