package shape

import (
	"github.com/ordinal-sh/ordinal/internal/kubeclient"

	"net/http"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// Request is one kind of API request: a verb (get, list, watch, create,
// update, patch, delete, deletecollection) on a resource ("pods",
// "statefulsets/status", …; a path for a request of no resource, such as
// "/version").
type Request struct {
	Verb     string
	Resource string
}

// Read says whether the request only reads.
func (r Request) Read() bool { return r.Verb == "get" || r.Verb == "list" || r.Verb == "watch" }

// Counter counts the requests of the clients whose configuration it
// wraps. A read-only Counter also refuses, before it leaves the process,
// every request that is not a read, answering as the API server refuses:
// a Forbidden Status.
type Counter struct {
	readOnly bool
	mu       sync.Mutex
	counts   map[Request]int
}

// NewCounter returns a Counter; readOnly makes it refuse writes.
func NewCounter(readOnly bool) *Counter {
	return &Counter{readOnly: readOnly, counts: map[Request]int{}}
}

// Wrap makes every client built from rc go through c.
func (c *Counter) Wrap(rc *rest.Config) {
	rc.Wrap(func(next http.RoundTripper) http.RoundTripper { return counted{c: c, next: next} })
}

// Counts is a copy of the counts so far.
func (c *Counter) Counts() map[Request]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[Request]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

type counted struct {
	c    *Counter
	next http.RoundTripper
}

func (t counted) RoundTrip(req *http.Request) (*http.Response, error) {
	r := Classify(req.Method, req.URL.Path, req.URL.Query().Get("watch"))
	t.c.mu.Lock()
	t.c.counts[r]++
	t.c.mu.Unlock()
	if t.c.readOnly && !r.Read() {
		return refuse(req)
	}
	return t.next.RoundTrip(req)
}

// refuse answers req with the Forbidden Status the API server would send.
func refuse(req *http.Request) (*http.Response, error) {
	return kubeclient.Refuse(req, "a rehearsal only reads its source cluster")
}

// Classify names the request a method and an API path make: GET is a
// get of one object, a list of a collection, or a watch (watch=true or a
// /watch/ path); POST, PUT, PATCH and DELETE are create, update, patch,
// delete (deletecollection without a name). A path outside /api and
// /apis, or a discovery path, is its own resource.
func Classify(method, path, watchParam string) Request {
	segs, ok := resourcePath(path)
	if !ok {
		return Request{Verb: strings.ToLower(method), Resource: path}
	}
	watching := watchParam == "true" || watchParam == "1"
	if len(segs) > 0 && segs[0] == "watch" {
		watching, segs = true, segs[1:]
	}
	if len(segs) >= 2 && segs[0] == "namespaces" && len(segs) > 2 {
		segs = segs[2:] // a namespaced resource
	}
	resource, named := segs[0], len(segs) > 1
	if len(segs) > 2 {
		resource += "/" + segs[2]
	}
	return Request{Verb: verb(method, named, watching), Resource: resource}
}

// resourcePath is the segments after /api/v1 or /apis/GROUP/VERSION;
// false for other paths and for discovery (nothing after the version).
func resourcePath(path string) ([]string, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		return segs[2:], true
	case len(segs) >= 4 && segs[0] == "apis":
		return segs[3:], true
	}
	return nil, false
}

func verb(method string, named, watching bool) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		switch {
		case watching:
			return "watch"
		case named:
			return "get"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if named {
			return "delete"
		}
		return "deletecollection"
	}
	return strings.ToLower(method)
}
