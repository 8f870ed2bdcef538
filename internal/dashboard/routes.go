package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/ordinal-sh/ordinal/internal/setops"
)

// actionTimeout bounds one action's API calls.
const actionTimeout = 30 * time.Second

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.Handle("GET /static/", staticFiles())
	mux.HandleFunc("GET /api/sets", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.list()) })
	mux.HandleFunc("GET /api/sets/{kind}/{namespace}/{name}", s.getSet)
	mux.HandleFunc("GET /api/sets/{kind}/{namespace}/{name}/diff", s.diff)
	mux.HandleFunc("GET /api/watch/sets", func(w http.ResponseWriter, r *http.Request) { s.stream(w, r, topicSets) })
	mux.HandleFunc("GET /api/watch/sets/{kind}/{namespace}/{name}", func(w http.ResponseWriter, r *http.Request) {
		s.stream(w, r, setTopic(r.PathValue("kind"), r.PathValue("namespace"), r.PathValue("name")))
	})
	mux.HandleFunc("POST /api/sets/{kind}/{namespace}/{name}/{action}", s.act)
	mux.HandleFunc("POST /api/sets/{kind}/{namespace}/{name}/pods/{ordinal}/delete", s.deletePod)
	return mux
}

func (s *Server) getSet(w http.ResponseWriter, r *http.Request) {
	d, err := s.detail(r.PathValue("kind"), r.PathValue("namespace"), r.PathValue("name"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// diffResult is a unified diff of two revisions' templates, followed by
// what changed of the data their ConfigMaps and Secrets hold
// (configdiff.go).
type diffResult struct {
	Same bool   `json:"same"`
	Text string `json:"text"`
}

func (s *Server) diff(w http.ResponseWriter, r *http.Request) {
	a, errA := strconv.ParseInt(r.URL.Query().Get("a"), 10, 64)
	b, errB := strconv.ParseInt(r.URL.Query().Get("b"), 10, 64)
	if errA != nil || errB != nil {
		writeError(w, badRequest{fmt.Sprintf("revisions must be numbers, got a=%q and b=%q", r.URL.Query().Get("a"), r.URL.Query().Get("b"))})
		return
	}
	o, err := s.observe(r.PathValue("kind"), r.PathValue("namespace"), r.PathValue("name"))
	if err != nil {
		writeError(w, err)
		return
	}
	d, err := setops.TemplateDiff(o.Set, o.Revisions, a, b)
	if err != nil {
		writeError(w, err)
		return
	}
	var text strings.Builder
	d.Render(&text)
	s.configDiff(r.Context(), o, a, b, &text)
	writeJSON(w, http.StatusOK, diffResult{Same: d.Same(), Text: text.String()})
}

// actionRequest is the body of an action; only undo reads it.
type actionRequest struct {
	Revision int64 `json:"revision"`
}

// act runs pause, resume, undo or restart as the server's user.
func (s *Server) act(w http.ResponseWriter, r *http.Request) {
	k, ok := s.actionKind(w, r)
	if !ok {
		return
	}
	var req actionRequest
	if err := readBody(r, &req); err != nil {
		writeError(w, err)
		return
	}
	op, err := operation(r.PathValue("action"), req, s.now())
	if err != nil {
		writeError(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	a, err := k.Actions(ctx, r.PathValue("namespace"), r.PathValue("name"))
	if err != nil {
		writeError(w, err)
		return
	}
	msg, err := op(ctx, a)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"message": msg})
}

// actionKind is the kind an action names, unless the server is read-only
// or the kind unknown, which it answers itself.
func (s *Server) actionKind(w http.ResponseWriter, r *http.Request) (Kind, bool) {
	if s.cfg.ReadOnly {
		writeError(w, readOnly{})
		return nil, false
	}
	k, ok := s.store.kind(r.PathValue("kind"))
	if !ok {
		writeError(w, errNotFound{fmt.Sprintf("kind %q", r.PathValue("kind"))})
	}
	return k, ok
}

// operation maps an action's name to its call.
func operation(name string, req actionRequest, now time.Time) (func(context.Context, Actions) (string, error), error) {
	switch name {
	case "pause":
		return func(ctx context.Context, a Actions) (string, error) { return a.Pause(ctx) }, nil
	case "resume":
		return func(ctx context.Context, a Actions) (string, error) { return a.Resume(ctx) }, nil
	case "undo":
		if req.Revision < 0 {
			return nil, badRequest{fmt.Sprintf("unable to find specified revision %d in history", req.Revision)}
		}
		return func(ctx context.Context, a Actions) (string, error) { return a.Undo(ctx, req.Revision) }, nil
	case "restart":
		return func(ctx context.Context, a Actions) (string, error) { return a.Restart(ctx, now) }, nil
	}
	return nil, errNotFound{fmt.Sprintf("action %q (pause, resume, undo, restart)", name)}
}

// deletePod is the extension point's route: only kinds that implement
// PodDeleter serve it.
func (s *Server) deletePod(w http.ResponseWriter, r *http.Request) {
	k, ok := s.actionKind(w, r)
	if !ok {
		return
	}
	d, ok := k.(PodDeleter)
	if !ok {
		writeError(w, errNotFound{fmt.Sprintf("deleting a chosen pod of %s from the dashboard", k.Name())})
		return
	}
	ord, err := strconv.ParseInt(r.PathValue("ordinal"), 10, 32)
	if err != nil || ord < 0 {
		writeError(w, badRequest{fmt.Sprintf("ordinal %q is not a non-negative number", r.PathValue("ordinal"))})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	msg, err := d.DeletePod(ctx, r.PathValue("namespace"), r.PathValue("name"), int32(ord))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"message": msg})
}

// readBody decodes an optional small JSON body.
func readBody(r *http.Request, v any) error {
	if r.ContentLength == 0 {
		return nil
	}
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest{"reading the request body: " + err.Error()}
	}
	return nil
}

type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

type readOnly struct{}

func (readOnly) Error() string {
	return "this dashboard is read-only (--read-only): actions are turned off"
}

// writeError answers with the error's message and a status that says
// whose fault it was.
func writeError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	var nf errNotFound
	var br badRequest
	var ro readOnly
	switch {
	case errors.As(err, &nf), apierrors.IsNotFound(err), errors.Is(err, setops.ErrNotFound):
		code = http.StatusNotFound
	case errors.As(err, &br):
		code = http.StatusBadRequest
	case errors.As(err, &ro), apierrors.IsForbidden(err):
		code = http.StatusForbidden
	case apierrors.IsUnauthorized(err):
		code = http.StatusUnauthorized
	case apierrors.IsConflict(err):
		code = http.StatusConflict
	case apierrors.IsInvalid(err):
		code = http.StatusUnprocessableEntity
	}
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
