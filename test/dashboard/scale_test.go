package dashboard_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

var (
	scale   = flag.Int("scale", 0, "pods in the set TestUpdateLatencyOfALargeSet measures (e.g. 1000); 0 skips that measurement")
	rolling = flag.Int("scale-update", 300, "how many of those pods the measured rollout replaces (the top ordinals, by partition)")
)

// TestUpdateLatencyOfALargeSet measures, for a set of -scale pods, the
// time from a new pod appearing in the API (as a watch sees it) to its
// cell showing the new revision in the page, and the page's frame times
// and update work while the rollout runs. It is a measurement, not a
// timed assertion: it fails only if the page never shows the rollout.
// The test command leaves it out (it takes minutes); run it with
//
//	go test ./test/dashboard/ -run TestUpdateLatencyOfALargeSet -v -args -scale=1000
func TestUpdateLatencyOfALargeSet(t *testing.T) {
	if *scale == 0 {
		t.Skip("a measurement that takes minutes: run with -args -scale=1000")
	}
	n, m := int32(*scale), int32(min(*rolling, *scale))
	ns := namespace(t)
	set := newSet(ns, "big", n, false)
	set.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	create(t, set)
	began := time.Now()
	before := waitComplete(t, ns, "big", 10*time.Minute)
	t.Logf("%d pods Ready in %s", n, time.Since(began).Round(time.Second))

	ctx := browser(t)
	run(t, ctx, chromedp.Navigate(setURL(ns, "big")))
	waitPage(t, ctx, fmt.Sprintf("%d Ready cells", n), fmt.Sprintf(`(() => { const c = document.querySelectorAll('#grid .cell[data-state="Ready"]'); return c.length === %d })()`, n),
		`document.querySelectorAll("#grid .cell").length`, time.Minute)
	eval[bool](t, ctx, instrument)

	seen := watchPods(t, ns)
	patch(t, ns, "big", fmt.Sprintf(`{"spec":{"updateStrategy":{"rollingUpdate":{"partition":%d,"maxUnavailable":50}},"template":{"spec":{"containers":[{"name":"nginx","image":%q}]}}}}`, n-m, imageNew))
	after := waitSet(t, ns, "big", "the update revision", func(s *appsv1.StatefulSet) bool {
		return s.Status.ObservedGeneration == s.Generation && s.Status.UpdateRevision != before.Status.UpdateRevision
	})
	newRev := after.Status.UpdateRevision
	began = time.Now()
	waitPage(t, ctx, fmt.Sprintf("%d Ready cells at the new revision", m),
		fmt.Sprintf(`document.querySelectorAll('#grid .cell[data-state="Ready"][data-revision="%s"]').length === %d`, newRev, m),
		fmt.Sprintf(`document.querySelectorAll('#grid .cell[data-revision="%s"]').length`, newRev), 10*time.Minute)
	rollout := time.Since(began)
	report(t, n, m, newRev, rollout, eval[json.RawMessage](t, ctx, collect), seen.firstAt(newRev))
}

// instrument records in the page when each cell's revision changes, the
// time between animation frames, and (already recorded by the page) the
// time each pushed update took to apply.
const instrument = `(() => {
  window.__m = {cells: [], frames: [], stop: false};
  performance.clearMeasures("ordinal-apply");
  new MutationObserver((records) => {
    const now = Date.now();
    for (const r of records) window.__m.cells.push({ord: +r.target.dataset.ordinal, rev: r.target.dataset.revision, t: now});
  }).observe(document.getElementById("grid"), {subtree: true, attributes: true, attributeFilter: ["data-revision"]});
  let last = performance.now();
  const frame = (ts) => { window.__m.frames.push(ts - last); last = ts; if (!window.__m.stop) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  return true;
})()`

const collect = `(() => {
  window.__m.stop = true;
  return {cells: window.__m.cells, frames: window.__m.frames,
    applies: performance.getEntriesByName("ordinal-apply").map(e => ({start: performance.timeOrigin + e.startTime, dur: e.duration, sent: e.detail}))};
})()`

// podTimes records when a watch first saw each pod at each revision.
type podTimes struct {
	mu    sync.Mutex
	first map[string]int64 // "ordinal/revision" -> Unix ms
}

func watchPods(t *testing.T, ns string) *podTimes {
	t.Helper()
	w, err := client.CoreV1().Pods(ns).Watch(context.Background(), metav1.ListOptions{LabelSelector: "app=big"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	p := &podTimes{first: map[string]int64{}}
	go func() {
		for ev := range w.ResultChan() {
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			key := pod.Name + "/" + pod.Labels[appsv1.StatefulSetRevisionLabel]
			now := time.Now().UnixMilli()
			p.mu.Lock()
			if _, ok := p.first[key]; !ok {
				p.first[key] = now
			}
			p.mu.Unlock()
		}
	}()
	return p
}

// firstAt maps pod names to when they were first seen at rev.
func (p *podTimes) firstAt(rev string) map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int64{}
	for key, at := range p.first {
		if name, r, ok := cut(key); ok && r == rev {
			out[name] = at
		}
	}
	return out
}

func cut(key string) (string, string, bool) {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return "", "", false
}

// measured is what the page recorded.
type measured struct {
	Cells []struct {
		Ord int    `json:"ord"`
		Rev string `json:"rev"`
		T   int64  `json:"t"`
	} `json:"cells"`
	Frames  []float64 `json:"frames"`
	Applies []struct {
		Start float64 `json:"start"` // Unix ms when the page began applying a push
		Dur   float64 `json:"dur"`
		Sent  float64 `json:"sent"` // Unix ms when the server wrote it
	} `json:"applies"`
}

// arrival is when the server sent and the page began applying the push
// that changed a cell at domAt: the last push that began before it.
func (m measured) arrival(domAt int64) (sent, start float64, ok bool) {
	for _, a := range m.Applies {
		if a.Start <= float64(domAt)+1 && a.Start > start {
			sent, start, ok = a.Sent, a.Start, true
		}
	}
	return sent, start, ok
}

func report(t *testing.T, n, m int32, newRev string, rollout time.Duration, raw json.RawMessage, api map[string]int64) {
	t.Helper()
	var got measured
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	var latency, toSend, toPage, inPage, applies []float64
	done := map[int]bool{}
	for _, c := range got.Cells {
		at, ok := api[fmt.Sprintf("big-%d", c.Ord)]
		if !ok || done[c.Ord] || c.Rev != newRev {
			continue
		}
		done[c.Ord] = true
		latency = append(latency, float64(c.T-at))
		if sent, arrived, ok := got.arrival(c.T); ok {
			toSend = append(toSend, sent-float64(at))
			toPage = append(toPage, arrived-sent)
			inPage = append(inPage, float64(c.T)-arrived)
		}
	}
	for _, a := range got.Applies {
		applies = append(applies, a.Dur)
	}
	if len(latency) < int(m) {
		t.Errorf("matched %d of %d new pods to their cells", len(latency), m)
	}
	fmt.Printf("dashboard at %d pods (%d replaced in %s):\n  API->DOM latency ms %s\n    API->server sends the push ms %s\n    sent->page starts applying it ms %s\n    applying it ms %s\n  frame interval ms %s, %d frames over 50 ms\n  update apply ms %s over %d pushes\n",
		n, m, rollout.Round(100*time.Millisecond), stats(latency), stats(toSend), stats(toPage), stats(inPage), stats(got.Frames), countOver(got.Frames, 50), stats(applies), len(applies))
}

// stats is "p50 X, p99 Y, max Z".
func stats(v []float64) string {
	if len(v) == 0 {
		return "none"
	}
	s := slices.Clone(v)
	slices.Sort(s)
	at := func(q float64) float64 { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return fmt.Sprintf("p50 %.1f, p99 %.1f, max %.1f (n=%d)", at(0.5), at(0.99), s[len(s)-1], len(s))
}

func countOver(v []float64, limit float64) int {
	n := 0
	for _, x := range v {
		if x > limit {
			n++
		}
	}
	return n
}
