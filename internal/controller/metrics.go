package controller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Metrics are registered in Registry, which `ordinal controller` serves on
// /metrics.
var (
	// Registry holds the controller's metrics.
	Registry = prometheus.NewRegistry()

	syncDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "ordinal_statefulset_sync_duration_seconds",
		Help:    "Time one sync of a StatefulSet took, by result.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
	}, []string{"result"})
	setReplicas = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ordinal_statefulset_replicas",
		Help: "Pods of a StatefulSet by kind: desired, ready, available, updated, current.",
	}, []string{"namespace", "statefulset", "kind"})
	setWaiting = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ordinal_statefulset_rollout_waiting",
		Help: "1 while a StatefulSet's rollout waits on something (see `ordinal rollout plan`).",
	}, []string{"namespace", "statefulset"})
)

func init() {
	Registry.MustRegister(syncDuration, setReplicas, setWaiting,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

func observeSync(began time.Time, err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	syncDuration.WithLabelValues(result).Observe(time.Since(began).Seconds())
}

// forgetRollout drops a deleted set's gauges.
func forgetRollout(namespace, name string) {
	for _, kind := range []string{"desired", "ready", "available", "updated", "current"} {
		setReplicas.DeleteLabelValues(namespace, name, kind)
	}
	setWaiting.DeleteLabelValues(namespace, name)
}

func recordRollout(set *appsv1.StatefulSet, plan planner.Plan) {
	desired := int32(1)
	if set.Spec.Replicas != nil {
		desired = *set.Spec.Replicas
	}
	st := plan.Status
	for kind, v := range map[string]int32{"desired": desired, "ready": st.ReadyReplicas, "available": st.AvailableReplicas,
		"updated": st.UpdatedReplicas, "current": st.CurrentReplicas} {
		setReplicas.WithLabelValues(set.Namespace, set.Name, kind).Set(float64(v))
	}
	waiting := 0.0
	if len(plan.Waits) > 0 {
		waiting = 1
	}
	setWaiting.WithLabelValues(set.Namespace, set.Name).Set(waiting)
}
