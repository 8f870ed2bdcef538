package controller

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

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
			d.PrependReactor("get", "version", func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, nil, errors.New("unreachable")
			})
		}
		if got := discoverRelease(context.Background(), d, planner.Release{RecreateGateOff: true}); got != tc.want {
			t.Errorf("server %q (failing %v): release %+v, want %+v", tc.version, tc.fail, got, tc.want)
		}
	}
}
