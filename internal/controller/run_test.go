package controller

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

func TestRunRefusesBadOptionsByName(t *testing.T) {
	client := fake.NewClientset()
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Workers: 0}, "workers must be at least 1"},
		{Options{Workers: 1, StatusHold: -time.Second}, "status hold must not be negative"},
	} {
		err := Run(context.Background(), client, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one saying %q", tc.opts, err, tc.want)
		}
	}
}

// A controller that leaves apps/v1 sets to another neither lists nor
// watches them: its account needs no access to them (the chart's and
// config/extended-only's roles grant none), and the cache does not hold
// every set of the cluster for nothing. One that manages them does both.
func TestOnlyAControllerOfAppsV1SetsListsAndWatchesThem(t *testing.T) {
	for _, skip := range []bool{false, true} {
		client := fake.NewClientset()
		factory := NewInformerFactory(client, "")
		c, err := New(client, factory, Options{Workers: 1, SkipAppsV1: skip})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		factory.Start(ctx.Done())
		if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
			t.Fatal("informer caches did not sync")
		}
		var calls []string
		for _, a := range client.Actions() {
			if a.GetResource().Resource == "statefulsets" {
				calls = append(calls, a.GetVerb())
			}
		}
		cancel()
		factory.Shutdown()
		c.events.Shutdown()
		c.queue.ShutDown()
		want := []string{"list", "watch"}
		if skip {
			want = nil
		}
		slices.Sort(calls)
		if !slices.Equal(calls, want) {
			t.Errorf("SkipAppsV1 %v: the controller made %v on apps/v1 statefulsets, want %v", skip, calls, want)
		}
	}
}

// A controller stopped while its informers still list (a pod stopped
// during start-up, a test that ends quickly) stops cleanly: Run returns
// nil, as it does once running.
func TestAStopDuringStartUpIsNotAFailure(t *testing.T) {
	client := fake.NewClientset()
	listing := make(chan struct{})
	var once sync.Once
	ctx, cancel := context.WithCancel(context.Background())
	client.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		once.Do(func() { close(listing) })
		<-ctx.Done() // the list answers only when the controller stops
		return true, nil, ctx.Err()
	})
	done := make(chan error, 1)
	go func() { done <- Run(ctx, client, Options{Workers: 1}) }()
	select {
	case <-listing:
	case <-time.After(30 * time.Second):
		t.Fatal("the controller never listed pods")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run stopped during start-up returned %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

func TestTheReleaseComesFromTheServersVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		fail    bool
		want    planner.Release
	}{
		{version: "v1.36.3-gke.1200", want: planner.Release{Minor: 36, Patch: 3, RecreateGateOff: true}},
		{version: "v1.37.2", want: planner.Release{Minor: 37, Patch: 2, RecreateGateOff: true}},
		{version: "something else", want: planner.Release{RecreateGateOff: true}},
		{fail: true, want: planner.Release{RecreateGateOff: true}},
	} {
		client := fake.NewClientset()
		d := client.Discovery().(*fakediscovery.FakeDiscovery)
		d.FakedServerVersion = &version.Info{GitVersion: tc.version}
		if tc.fail {
			d.PrependReactor("get", "version", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, errors.New("unreachable")
			})
		}
		if got := discoverRelease(context.Background(), d, planner.Release{RecreateGateOff: true}); got != tc.want {
			t.Errorf("server %q (failing %v): release %+v, want %+v", tc.version, tc.fail, got, tc.want)
		}
	}
}
