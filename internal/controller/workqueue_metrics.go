package controller

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// Work-queue metrics, named as kube-controller-manager names them so
// existing dashboards work.
var (
	wqDepth = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "workqueue_depth", Help: "Current depth of the work queue."}, []string{"name"})
	wqAdds = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "workqueue_adds_total", Help: "Adds handled by the work queue."}, []string{"name"})
	wqLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "workqueue_queue_duration_seconds", Help: "Time an item waits in the queue before it is processed.",
		Buckets: prometheus.ExponentialBuckets(1e-6, 10, 10)}, []string{"name"})
	wqWork = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "workqueue_work_duration_seconds", Help: "Time processing an item takes.",
		Buckets: prometheus.ExponentialBuckets(1e-6, 10, 10)}, []string{"name"})
	wqUnfinished = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "workqueue_unfinished_work_seconds", Help: "Seconds of work in progress not yet observed by work_duration."}, []string{"name"})
	wqLongest = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "workqueue_longest_running_processor_seconds", Help: "Seconds the longest running processor has been running."}, []string{"name"})
	wqRetries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "workqueue_retries_total", Help: "Retries handled by the work queue."}, []string{"name"})
)

func init() {
	workqueue.SetProvider(queueMetrics{})
}

// queueMetrics feeds client-go's work queues into the metrics above, which
// NewRegistry registers.
type queueMetrics struct{}

var _ workqueue.MetricsProvider = queueMetrics{}

func (queueMetrics) NewDepthMetric(n string) workqueue.GaugeMetric  { return wqDepth.WithLabelValues(n) }
func (queueMetrics) NewAddsMetric(n string) workqueue.CounterMetric { return wqAdds.WithLabelValues(n) }
func (queueMetrics) NewLatencyMetric(n string) workqueue.HistogramMetric {
	return wqLatency.WithLabelValues(n)
}
func (queueMetrics) NewWorkDurationMetric(n string) workqueue.HistogramMetric {
	return wqWork.WithLabelValues(n)
}
func (queueMetrics) NewUnfinishedWorkSecondsMetric(n string) workqueue.SettableGaugeMetric {
	return wqUnfinished.WithLabelValues(n)
}
func (queueMetrics) NewLongestRunningProcessorSecondsMetric(n string) workqueue.SettableGaugeMetric {
	return wqLongest.WithLabelValues(n)
}
func (queueMetrics) NewRetriesMetric(n string) workqueue.CounterMetric {
	return wqRetries.WithLabelValues(n)
}
