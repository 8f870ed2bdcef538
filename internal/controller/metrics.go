package controller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// syncDuration is process-wide, like the work-queue metrics client-go
// reports through its global provider; the per-set gauges belong to one
// controller (rolloutCollector).
var syncDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Name:    "ordinal_statefulset_sync_duration_seconds",
	Help:    "Time one sync of a StatefulSet took, by result.",
	Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
}, []string{"result"})

// NewRegistry returns a registry with the process-wide metrics: sync
// durations, the work queue's, Go's and the process's. Pass it as
// Options.Metrics and the controller adds its per-set gauges; `ordinal
// controller` serves it on /metrics.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(syncDuration, wqDepth, wqAdds, wqLatency, wqWork, wqUnfinished, wqLongest, wqRetries,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

func observeSync(began time.Time, err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	syncDuration.WithLabelValues(result).Observe(time.Since(began).Seconds())
}

// recordRollout keeps the set's gauges in the gauges' memory as of this
// sync's plan.
func recordRollout(gauges *perSet[rolloutGauges], key string, set *appsv1.StatefulSet, plan planner.Plan) {
	st := plan.Status
	g := rolloutGauges{
		replicas: [len(replicaKinds)]int32{planner.Replicas(set), st.ReadyReplicas, st.AvailableReplicas, st.UpdatedReplicas, st.CurrentReplicas},
		waiting:  len(plan.Waits) > 0}
	gauges.update(key, func(s *rolloutGauges) { *s = g })
}

// replicaKinds are the values of ordinal_statefulset_replicas' kind label,
// in rolloutGauges.replicas' order.
var replicaKinds = [...]string{"desired", "ready", "available", "updated", "current"}

type rolloutGauges struct {
	replicas [len(replicaKinds)]int32
	waiting  bool
}

// rolloutCollector makes each set's gauges from its memory only when
// scraped (group tells the two kinds of set apart: "apps" or
// "apps.ordinal.dev"): a GaugeVec keeps every series with its label pairs, about 3 KB
// a set, which with thousands of sets was a tenth of the controller's
// heap. A deleted set's gauges, and so its series, are gone with it.
type rolloutCollector struct {
	replicasDesc, waitingDesc *prometheus.Desc
	gauges                    *perSet[rolloutGauges]
}

func newRolloutCollector(gauges *perSet[rolloutGauges]) *rolloutCollector {
	return &rolloutCollector{
		replicasDesc: prometheus.NewDesc("ordinal_statefulset_replicas",
			"Pods of a StatefulSet by kind: desired, ready, available, updated, current.", []string{"namespace", "statefulset", "group", "kind"}, nil),
		waitingDesc: prometheus.NewDesc("ordinal_statefulset_rollout_waiting",
			"1 while a StatefulSet's rollout waits on something (see `ordinal rollout plan`).", []string{"namespace", "statefulset", "group"}, nil),
		gauges: gauges,
	}
}

// Describe implements prometheus.Collector.
func (c *rolloutCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.replicasDesc
	ch <- c.waitingDesc
}

// Collect implements prometheus.Collector.
func (c *rolloutCollector) Collect(ch chan<- prometheus.Metric) {
	for key, g := range rollouts(c.gauges) {
		set, namespace, name, ok := setkind.ParseKey(key)
		if !ok {
			continue
		}
		group := set.Group()
		for i, kind := range replicaKinds {
			ch <- prometheus.MustNewConstMetric(c.replicasDesc, prometheus.GaugeValue, float64(g.replicas[i]), namespace, name, group, kind)
		}
		waiting := 0.0
		if g.waiting {
			waiting = 1
		}
		ch <- prometheus.MustNewConstMetric(c.waitingDesc, prometheus.GaugeValue, waiting, namespace, name, group)
	}
}

// rollouts returns a copy of every set's rollout gauges, by key, so that
// the metrics are sent without the memory's lock.
func rollouts(gauges *perSet[rolloutGauges]) map[string]rolloutGauges {
	out := map[string]rolloutGauges{}
	gauges.each(func(key string, g *rolloutGauges) { out[key] = *g })
	return out
}
