package planner_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestWaits(t *testing.T) {
	f := steady(testgen.Replicas(3))
	par := rollout(testgen.Replicas(3), testgen.Parallel())
	stale := scaledDown(retain, del, testgen.Replicas(2))
	created := now.Add(-5 * time.Minute)
	tests := []struct {
		name string
		in   planner.Input
		want []planner.Wait
	}{{
		name: "a terminating pod is waited on since its deletion was requested",
		in:   f.input(with(f.pods(0), f.pod(1, testgen.Terminating(now.Add(-time.Minute))))),
		want: []planner.Wait{{
			Ordinal: 1, Pod: "web-1", Revision: f.cur.Name, State: "Terminating", Since: now.Add(-time.Minute),
			Policy: "OrderedReady: web-1 must finish terminating before it is recreated and before any later pod changes",
			Hint:   "A pod held by a finalizer or on an unreachable node stays Terminating; check its finalizers and its node.",
		}},
	}, {
		name: "a pending pod is waited on since it was created",
		in:   f.input(with(f.pods(0), f.pod(1, testgen.Pending(), testgen.CreatedAt(created)))),
		want: []planner.Wait{{
			Ordinal: 1, Pod: "web-1", Revision: f.cur.Name, State: "Pending", Since: created,
			Policy: "OrderedReady: pods after web-1 are created, updated or deleted only once it is Running and Ready",
			Hint:   "Check the events of web-1 (kubectl describe pod): it may be unschedulable or waiting for its volumes.",
		}},
	}, {
		name: "a pod blocked by a stale claim is waited on before it exists",
		in: stale.input(stale.pods(0), testgen.Claim(stale.set, "data", 1,
			testgen.OwnerRef(testgen.ControllerRef("v1", "Pod", "web-1", "uid-earlier")))),
		want: []planner.Wait{{
			Ordinal: 1, Pod: "web-1", Revision: stale.cur.Name, State: "Missing",
			Policy: "whenScaled Delete: claim data-web-1 still belongs to an earlier web-1 and must be garbage-collected before web-1 is created",
			Hint:   "Check what holds claim data-web-1 (finalizers, the garbage collector).",
		}},
	}, {
		name: "a rolling update out of budget waits on the unavailable pod",
		in:   par.input([]*corev1.Pod{par.pod(0), par.updated(1), par.updated(2, testgen.NotReady(now.Add(-time.Minute)))}),
		want: []planner.Wait{{
			Ordinal: 2, Pod: "web-2", Revision: par.upd.Name, State: "Running, not Ready", Since: now.Add(-time.Minute),
			Policy: "RollingUpdate maxUnavailable 1: 1 unavailable now, so web-0 (old revision) is replaced only when a pod becomes available",
			Hint:   "web-2 runs the new revision " + par.upd.Name + " and is not Ready; if the new template is broken, fix it or roll back (kubectl rollout undo).",
		}},
	}, {
		name: "a progressing plan has no waits",
		in:   f.input(f.pods(0, 1)),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, compute(tt.in).Waits); diff != "" {
				t.Errorf("waits mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
