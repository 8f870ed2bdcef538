package controller

import (
	"maps"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

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
	rollouts = newRolloutCollector()
)

func init() {
	Registry.MustRegister(syncDuration, rollouts,
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
	rollouts.forget(types.NamespacedName{Namespace: namespace, Name: name})
}

func recordRollout(set *appsv1.StatefulSet, plan planner.Plan) {
	desired := int32(1)
	if set.Spec.Replicas != nil {
		desired = *set.Spec.Replicas
	}
	st := plan.Status
	rollouts.record(types.NamespacedName{Namespace: set.Namespace, Name: set.Name}, rolloutGauges{
		replicas: [len(replicaKinds)]int32{desired, st.ReadyReplicas, st.AvailableReplicas, st.UpdatedReplicas, st.CurrentReplicas},
		waiting:  len(plan.Waits) > 0})
}

// replicaKinds are the values of ordinal_statefulset_replicas' kind label,
// in rolloutGauges.replicas' order.
var replicaKinds = [...]string{"desired", "ready", "available", "updated", "current"}

type rolloutGauges struct {
	replicas [len(replicaKinds)]int32
	waiting  bool
}

// rolloutCollector keeps each set's gauges as a few integers and makes the
// series only when scraped: a GaugeVec keeps every series with its label
// pairs, about 3 KB a set, which with thousands of sets was a tenth of the
// controller's heap.
type rolloutCollector struct {
	replicasDesc, waitingDesc *prometheus.Desc

	mu   sync.Mutex
	sets map[types.NamespacedName]rolloutGauges
}

func newRolloutCollector() *rolloutCollector {
	return &rolloutCollector{
		replicasDesc: prometheus.NewDesc("ordinal_statefulset_replicas",
			"Pods of a StatefulSet by kind: desired, ready, available, updated, current.", []string{"namespace", "statefulset", "kind"}, nil),
		waitingDesc: prometheus.NewDesc("ordinal_statefulset_rollout_waiting",
			"1 while a StatefulSet's rollout waits on something (see `ordinal rollout plan`).", []string{"namespace", "statefulset"}, nil),
		sets: map[types.NamespacedName]rolloutGauges{},
	}
}

func (c *rolloutCollector) record(set types.NamespacedName, g rolloutGauges) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sets[set] = g
}

func (c *rolloutCollector) forget(set types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.sets, set)
}

// Describe implements prometheus.Collector.
func (c *rolloutCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.replicasDesc
	ch <- c.waitingDesc
}

// Collect implements prometheus.Collector.
func (c *rolloutCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	snapshot := maps.Clone(c.sets)
	c.mu.Unlock()
	for set, g := range snapshot {
		for i, kind := range replicaKinds {
			ch <- prometheus.MustNewConstMetric(c.replicasDesc, prometheus.GaugeValue, float64(g.replicas[i]), set.Namespace, set.Name, kind)
		}
		waiting := 0.0
		if g.waiting {
			waiting = 1
		}
		ch <- prometheus.MustNewConstMetric(c.waitingDesc, prometheus.GaugeValue, waiting, set.Namespace, set.Name)
	}
}
