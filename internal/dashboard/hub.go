package dashboard

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"
)

// topicSets is the list page's topic; a set's page is "set/KIND/NS/NAME".
const topicSets = "sets"

func setTopic(kind, namespace, name string) string {
	return "set/" + kind + "/" + namespace + "/" + name
}

// hub fans the server's one watch out to every open page. Watch events
// only mark topics dirty; a single loop renders each dirty topic once, at
// most once per interval (the first change of a quiet topic goes out at
// once, a burst within the interval becomes one push), and hands the
// payload to each subscriber. A subscriber holds only the latest payload,
// so a slow browser skips states instead of slowing the others.
type hub struct {
	interval time.Duration
	// refresh re-renders open set pages this often, for the ages in the
	// planner's explanation; unchanged payloads are not sent again.
	refresh time.Duration
	render  func(topic string) ([]byte, error)

	flushMu sync.Mutex // one render-and-send at a time
	mu      sync.Mutex
	subs    map[string]map[*subscriber]struct{}
	dirty   map[string]bool
	last    map[string][]byte
	wake    chan struct{}
}

// subscriber is one open page.
type subscriber struct {
	ch chan []byte
}

func newHub(interval time.Duration, render func(string) ([]byte, error)) *hub {
	return &hub{
		interval: interval, refresh: 2 * time.Second, render: render,
		subs: map[string]map[*subscriber]struct{}{}, dirty: map[string]bool{},
		last: map[string][]byte{}, wake: make(chan struct{}, 1),
	}
}

// subscribe registers a page and sends it the topic's current state.
func (h *hub) subscribe(topic string) (*subscriber, error) {
	s := &subscriber{ch: make(chan []byte, 1)}
	h.flushMu.Lock()
	defer h.flushMu.Unlock()
	payload, err := h.render(topic)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.subs[topic] == nil {
		h.subs[topic] = map[*subscriber]struct{}{}
	}
	h.subs[topic][s] = struct{}{}
	h.mu.Unlock()
	s.offer(payload)
	return s, nil
}

func (h *hub) unsubscribe(topic string, s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs[topic], s)
	if len(h.subs[topic]) == 0 {
		delete(h.subs, topic)
		delete(h.last, topic)
	}
}

// offer replaces whatever the page has not read yet with payload.
func (s *subscriber) offer(payload []byte) {
	select {
	case <-s.ch:
	default:
	}
	s.ch <- payload
}

// mark flags topics as changed; only topics someone watches are kept.
func (h *hub) mark(topics ...string) {
	h.mu.Lock()
	n := 0
	for _, t := range topics {
		if _, ok := h.subs[t]; ok {
			h.dirty[t] = true
			n++
		}
	}
	h.mu.Unlock()
	if n > 0 {
		h.poke()
	}
}

// markWhere flags every watched topic that matches.
func (h *hub) markWhere(match func(topic string) bool) {
	h.mu.Lock()
	n := 0
	for t := range h.subs {
		if match(t) {
			h.dirty[t] = true
			n++
		}
	}
	h.mu.Unlock()
	if n > 0 {
		h.poke()
	}
}

func (h *hub) poke() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// run pushes changes until ctx ends.
func (h *hub) run(ctx context.Context) {
	tick := time.NewTicker(h.refresh)
	defer tick.Stop()
	var lastFlush time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			h.markWhere(func(t string) bool { return strings.HasPrefix(t, "set/") })
			continue
		case <-h.wake:
		}
		if wait := h.interval - time.Since(lastFlush); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		lastFlush = time.Now()
		h.flush()
	}
}

// flush renders each dirty topic once and sends it where it changed.
func (h *hub) flush() {
	h.flushMu.Lock()
	defer h.flushMu.Unlock()
	h.mu.Lock()
	topics := make([]string, 0, len(h.dirty))
	for t := range h.dirty {
		topics = append(topics, t)
	}
	clear(h.dirty)
	h.mu.Unlock()
	for _, t := range topics {
		payload, err := h.render(t)
		if err != nil {
			continue
		}
		h.send(t, payload)
	}
}

func (h *hub) send(topic string, payload []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if bytes.Equal(h.last[topic], payload) {
		return
	}
	if _, ok := h.subs[topic]; !ok {
		return
	}
	h.last[topic] = payload
	for s := range h.subs[topic] {
		s.offer(payload)
	}
}
