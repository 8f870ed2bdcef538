package bench

import (
	"fmt"
	"maps"
	"math"
	"net/http"
	"sort"
	"time"
)

// Result is what one (scenario, contender, client limits) run measured. A
// QPS of 0 means unthrottled.
type Result struct {
	Scenario  string  `json:"scenario"`
	Contender string  `json:"contender"`
	QPS       float32 `json:"qps"`
	Burst     int     `json:"burst"`
	Workers   int     `json:"workers"`
	Size      string  `json:"size"`
	// Seconds is the wall time of the measured steps, each from the
	// harness's write to the end state it observed.
	Seconds float64 `json:"seconds"`
	// LastWriteSeconds is, summed over the measured steps, the time from the
	// harness's write to the last pod create or delete the harness saw: the
	// contender's own part of Seconds, before the plane's pod start-up.
	LastWriteSeconds float64 `json:"last_write_seconds"`
	Phases           []Phase `json:"phases,omitempty"`
	// APIWrites counts the writes at the API server during the write
	// window that counted() keeps: every POST/PUT/PATCH/DELETE/APPLY on
	// pods, statefulsets/status and controllerrevisions, and claim creates
	// and deletes (not claim updates or patches, which the PV binder and
	// the provisioner make too), less the node agent's final pod deletes.
	APIWrites      int64            `json:"api_writes"`
	APIWriteErrors int64            `json:"api_write_errors"`
	WritesBy       map[string]int64 `json:"writes_by,omitempty"`
	// RawWrites are the API server's counts before the node agent's pod
	// deletes are taken off, keyed "VERB resource code".
	RawWrites map[string]int64 `json:"raw_writes,omitempty"`
	// PodsGone is how many pods finished terminating in the write window,
	// PodDeleteMarks how many were marked for deletion (see sumWrites).
	PodsGone        int64   `json:"pods_gone,omitempty"`
	PodDeleteMarks  int64   `json:"pod_delete_marks,omitempty"`
	EventWrites     int64   `json:"event_writes"`
	NewPods         int64   `json:"new_pods"`
	WritesPerNewPod float64 `json:"writes_per_new_pod,omitempty"`
	CPUSeconds      float64 `json:"cpu_seconds"`
	CPUPerMinute    float64 `json:"cpu_seconds_per_minute,omitempty"`
	PeakRSSBytes    int64   `json:"peak_rss_bytes"`
	RSSBytes        int64   `json:"rss_bytes"`
	// PeakAnonBytes is the peak RssAnon sampled every 200 ms: the
	// contender's own memory, without the shared binary's pages.
	PeakAnonBytes   int64   `json:"peak_anon_bytes"`
	PlaneCPUSeconds float64 `json:"plane_cpu_seconds"`
	// Load is the machine's 1-, 5- and 15-minute load averages when the
	// measured window began: the contenders run one after another, so a
	// CPU ratio is only as good as the quiet each run had.
	Load            string   `json:"load,omitempty"`
	ReactionP50Ms   *float64 `json:"reaction_p50_ms,omitempty"`
	ReactionP99Ms   *float64 `json:"reaction_p99_ms,omitempty"`
	ReactionSamples int      `json:"reaction_samples,omitempty"`
	// StatusLagMean and StatusLagMax are how far the sets' statuses
	// trailed their pods over the measured window: summed over the sets,
	// |pods Running and Ready − status.readyReplicas|, from the harness's
	// watches of both; the mean weights each value by how long it held.
	// Absent for idle windows.
	StatusLagMean *float64 `json:"status_lag_mean,omitempty"`
	StatusLagMax  *int64   `json:"status_lag_max,omitempty"`
	// StatusWaitMs is the mean time a pod turning Ready (or no longer)
	// waited to be counted in status.readyReplicas: the lag's time-weighted
	// sum over the window's readiness changes (statusLag). The lag in pods
	// grows with how fast pods change; this does not, so two controllers
	// that change pods at different rates compare by it.
	StatusWaitMs *float64 `json:"status_wait_ms,omitempty"`
	// QuietWaitSeconds is how long the run waited, after its setup, for
	// the contender to come to rest (no counted write or event for one
	// poll) before the measured window began.
	QuietWaitSeconds float64 `json:"quiet_wait_seconds,omitempty"`
	// PodEvents is how many pod watch events (adds, updates, deletes) the
	// harness saw in the window; CPUPerPodEventMs is CPUSeconds over them.
	PodEvents        int64   `json:"pod_events,omitempty"`
	CPUPerPodEventMs float64 `json:"cpu_per_pod_event_ms,omitempty"`
	// Restart is what the restart after the window measured, for the
	// scenarios that restart the contender.
	Restart *Restart `json:"restart,omitempty"`
	// Drain is what the node-drain scenario's drain did and what the sets
	// kept meanwhile.
	Drain *Drain `json:"drain,omitempty"`
	// SelfCountedWrites is the floor's own count of its writes, a check on
	// the API-server count.
	SelfCountedWrites *int64 `json:"self_counted_writes,omitempty"`
	Error             string `json:"error,omitempty"`
}

// Restart is one restart of the contender: it was killed (SIGKILL) at
// rest, every set was scaled up by one while it was down, and it was
// started again. Times are from its start.
type Restart struct {
	// FirstActionSeconds is the time to its first pod write (the first new
	// pod, the only write the change calls for).
	FirstActionSeconds float64 `json:"first_action_seconds"`
	// ConvergedSeconds is the time until the harness saw the end state;
	// RestSeconds until the contender's counted writes and events stopped
	// (read every RestPollSeconds, so up to one poll late).
	ConvergedSeconds float64 `json:"converged_seconds"`
	RestSeconds      float64 `json:"rest_seconds"`
	RestPollSeconds  float64 `json:"rest_poll_seconds"`
	// PodListSeconds is how long one list of the namespace's pods took the
	// harness while the contender was down (timePodList): the floor under
	// FirstActionSeconds.
	PodListSeconds float64 `json:"pod_list_seconds,omitempty"`
	// CPUSeconds and PeakRSSBytes are the restarted process's, up to rest.
	CPUSeconds   float64 `json:"cpu_seconds"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
}

// Drain is one run of the node-drain scenario: a node holding one member
// of each set was drained (nodedrain.go).
type Drain struct {
	Node string `json:"node"`
	// FewestReady is the fewest Ready members, not terminating, that any
	// one set had at any pod event of the measured window.
	FewestReady int32 `json:"fewest_ready"`
	// Evicted and Refused are the drain's eviction requests that were
	// granted and that a budget refused (429). They are the harness's
	// requests: the run's API writes leave them, and the deletions the
	// granted ones made, out.
	Evicted int64 `json:"evicted"`
	Refused int64 `json:"refused"`
	// MovedSeconds is, for the extended kind, the time from the cordon
	// until every set had moved its member off the node, before the drain.
	MovedSeconds float64 `json:"moved_seconds,omitempty"`
}

// evictionsOf splits eviction requests by response code, between two
// readings, into granted (2xx), refused by a budget (429) and the rest
// (a pod already gone, another pod of that name).
func evictionsOf(before, after map[int]int64) (granted, refused, other int64) {
	for code, n := range after {
		n -= before[code]
		switch {
		case code/100 == 2:
			granted += n
		case code == http.StatusTooManyRequests:
			refused += n
		default:
			other += n
		}
	}
	return granted, refused, other
}

// withoutHarness returns delta less the harness's own eviction requests
// made between two readings of their counts by code.
func withoutHarness(delta map[writeKey]int64, before, after map[int]int64) map[writeKey]int64 {
	out := maps.Clone(delta)
	for code, n := range after {
		k := writeKey{"POST", "pods/eviction", code}
		if out[k] -= n - before[code]; out[k] == 0 {
			delete(out, k)
		}
	}
	return out
}

// Phase is the wall time of one measured step.
type Phase struct {
	Name             string  `json:"name"`
	Seconds          float64 `json:"seconds"`
	LastWriteSeconds float64 `json:"last_write_seconds"`
}

// Percentile returns the p-th percentile (0-100) of samples by the
// nearest-rank method; ok is false for no samples.
func Percentile(samples []time.Duration, p float64) (time.Duration, bool) {
	if len(samples) == 0 {
		return 0, false
	}
	s := append([]time.Duration(nil), samples...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1], true
}

// sumWrites totals write-counter deltas by "VERB resource". The node agent
// (kwok, like a kubelet) finishes every pod deletion with DELETEs of its own
// — one that succeeds and, racing its own watch, a varying number of
// duplicates answered 200 or 404 — so the API server's DELETE pods count
// cannot be split by code. The contender's pod deletes are instead counted
// as the deletion marks the harness saw (marks): every contender deletes
// with a grace period, so each successful delete sets deletionTimestamp
// once, and the node agent's deletes never set one. A contender's failed
// pod deletes are therefore not counted.
func sumWrites(delta map[writeKey]int64, marks int64) (total, errs int64, by map[string]int64) {
	d := make(map[writeKey]int64, len(delta))
	for k, n := range delta {
		if k.Verb != "DELETE" || k.Resource != "pods" {
			d[k] = n
		}
	}
	d[writeKey{"DELETE", "pods", 200}] = marks
	by = map[string]int64{}
	for k, n := range d {
		if n == 0 {
			continue
		}
		by[k.Verb+" "+k.Resource] += n
		total += n
		if k.Code >= 400 {
			errs += n
		}
	}
	return total, errs, by
}

// rawWrites renders write deltas as "VERB resource code" → count.
func rawWrites(delta map[writeKey]int64) map[string]int64 {
	out := make(map[string]int64, len(delta))
	for k, n := range delta {
		out[fmt.Sprintf("%s %s %d", k.Verb, k.Resource, k.Code)] = n
	}
	return out
}

// group keys results that compare with each other.
type group struct {
	Scenario string
	QPS      float32
}

// floorOf returns the floor result of each group.
func floorOf(results []Result) map[group]Result {
	out := map[group]Result{}
	for _, r := range results {
		if r.Contender == ContenderFloor && r.Error == "" {
			out[group{r.Scenario, r.QPS}] = r
		}
	}
	return out
}

// Ratio is a/b, or NaN when b is zero.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}
