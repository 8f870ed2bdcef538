package dashboard

import (
	"fmt"
	"net/http"
	"time"
)

// keepAlive is how often an idle event stream gets a comment line, so
// proxies and the browser keep it open.
const keepAlive = 15 * time.Second

// stream serves a topic as server-sent events: the current state at once,
// then every change the hub pushes. EventSource reconnects by itself.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, topic string) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	sub, err := s.hub.subscribe(topic)
	if err != nil {
		writeError(w, err)
		return
	}
	defer s.hub.unsubscribe(topic, sub)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case payload := <-sub.ch:
			// The id is the send time (Unix ms): the page records it with
			// each update, so delays split into server and browser.
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", time.Now().UnixMilli(), payload); err != nil {
				return
			}
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		}
		flusher.Flush()
	}
}
