package controller

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestRolloutGaugesFollowEachSetUntilItIsDeleted(t *testing.T) {
	gauges := newPerSet[rolloutGauges](&memories{})
	rollouts := newRolloutCollector(gauges)

	web := testgen.StatefulSet("web", testgen.Replicas(3))
	db := testgen.StatefulSet("db")
	db.Spec.Replicas = nil // defaults to 1
	recordRollout(gauges, web.Namespace+"/web", web, planner.Plan{Status: appsv1.StatefulSetStatus{ReadyReplicas: 2, AvailableReplicas: 1, UpdatedReplicas: 3, CurrentReplicas: 0},
		Waits: []planner.Wait{{Ordinal: 2, Pod: "web-2"}}})
	recordRollout(gauges, db.Namespace+"/db", db, planner.Plan{Status: appsv1.StatefulSetStatus{ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 1, CurrentReplicas: 1}})
	ns := web.Namespace
	want := `
# HELP ordinal_statefulset_replicas Pods of a StatefulSet by kind: desired, ready, available, updated, current.
# TYPE ordinal_statefulset_replicas gauge
ordinal_statefulset_replicas{group="apps",kind="available",namespace="NS",statefulset="db"} 1
ordinal_statefulset_replicas{group="apps",kind="current",namespace="NS",statefulset="db"} 1
ordinal_statefulset_replicas{group="apps",kind="desired",namespace="NS",statefulset="db"} 1
ordinal_statefulset_replicas{group="apps",kind="ready",namespace="NS",statefulset="db"} 1
ordinal_statefulset_replicas{group="apps",kind="updated",namespace="NS",statefulset="db"} 1
ordinal_statefulset_replicas{group="apps",kind="available",namespace="NS",statefulset="web"} 1
ordinal_statefulset_replicas{group="apps",kind="current",namespace="NS",statefulset="web"} 0
ordinal_statefulset_replicas{group="apps",kind="desired",namespace="NS",statefulset="web"} 3
ordinal_statefulset_replicas{group="apps",kind="ready",namespace="NS",statefulset="web"} 2
ordinal_statefulset_replicas{group="apps",kind="updated",namespace="NS",statefulset="web"} 3
# HELP ordinal_statefulset_rollout_waiting 1 while a StatefulSet's rollout waits on something (see ` + "`ordinal rollout plan`" + `).
# TYPE ordinal_statefulset_rollout_waiting gauge
ordinal_statefulset_rollout_waiting{group="apps",namespace="NS",statefulset="db"} 0
ordinal_statefulset_rollout_waiting{group="apps",namespace="NS",statefulset="web"} 1
`
	if err := testutil.CollectAndCompare(rollouts, strings.NewReader(strings.ReplaceAll(want, "NS", ns))); err != nil {
		t.Error(err)
	}

	gauges.forget(ns + "/web")
	if n := testutil.CollectAndCount(rollouts); n != 6 {
		t.Errorf("after web was deleted %d series remain, want db's 6", n)
	}
	if err := testutil.CollectAndCompare(rollouts, strings.NewReader(strings.ReplaceAll(want, "NS", ns)), "ordinal_statefulset_rollout_waiting"); err == nil {
		t.Error("web's waiting gauge is still collected after the set was forgotten")
	}
	// The registry the controller serves accepts the collector.
	reg := NewRegistry()
	reg.MustRegister(rollouts)
	if _, err := reg.Gather(); err != nil {
		t.Errorf("gathering the controller's registry: %v", err)
	}
}
