package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// options are the server's flags.
type options struct {
	listen     string
	data       string
	unready    bool
	exitAfter  time.Duration
	exitCode   int
	stopDelay  time.Duration
	ignoreTerm bool
	role       string
	files      string
}

func parseOptions(args []string) (options, error) {
	o := options{exitAfter: -1}
	fs := flag.NewFlagSet("ordinal-testapp", flag.ContinueOnError)
	fs.StringVar(&o.listen, "listen", ":8080", "address to serve HTTP on")
	fs.StringVar(&o.data, "data", "", "directory for the data marker (a volume); empty: none")
	fs.BoolVar(&o.unready, "unready", false, "start unready (POST /ready makes it ready)")
	fs.DurationVar(&o.exitAfter, "exit-after", o.exitAfter, "exit with --exit-code this long after start (negative: never)")
	fs.IntVar(&o.exitCode, "exit-code", 1, "exit code of --exit-after")
	fs.DurationVar(&o.stopDelay, "stop-delay", 0, "time from SIGTERM to exit")
	fs.BoolVar(&o.ignoreTerm, "ignore-sigterm", false, "never exit on SIGTERM (only SIGKILL stops it)")
	fs.StringVar(&o.role, "role", "", "the role GET /role answers at start (empty: none)")
	fs.StringVar(&o.files, "files", "", "directory GET /files/NAME reads (a mounted ConfigMap); empty: none")
	return o, fs.Parse(args)
}

// app is the server's state.
type app struct {
	opts    options
	ready   atomic.Bool
	started time.Time
	marker  string
	starts  int
	// role is what GET /role answers; roleDown makes it answer 503.
	role     atomic.Pointer[string]
	roleDown atomic.Bool
}

func serve(args []string) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	a := &app{opts: o, started: time.Now().UTC()}
	a.ready.Store(!o.unready)
	a.role.Store(&o.role)
	if o.data != "" {
		if a.marker, a.starts, err = recordStart(o.data, a.started); err != nil {
			return err
		}
	}
	l, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: a.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	fmt.Printf("ordinal-testapp %s serving on %s (ready %v)\n", version, l.Addr(), a.ready.Load())
	if o.exitAfter >= 0 {
		time.AfterFunc(o.exitAfter, func() {
			fmt.Printf("exiting with code %d after %s, as told\n", o.exitCode, o.exitAfter)
			os.Exit(o.exitCode)
		})
	}
	a.waitForTerm()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

// waitForTerm returns once a SIGTERM or SIGINT is to be obeyed: at once,
// after --stop-delay, or never with --ignore-sigterm.
func (a *app) waitForTerm() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	for sig := range sigs {
		fmt.Printf("got %s\n", sig)
		if a.opts.ignoreTerm {
			continue
		}
		a.ready.Store(false)
		time.Sleep(a.opts.stopDelay)
		return
	}
}

func (a *app) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !a.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.HandleFunc("POST /ready", func(w http.ResponseWriter, _ *http.Request) { a.ready.Store(true) })
	mux.HandleFunc("POST /unready", func(w http.ResponseWriter, _ *http.Request) { a.ready.Store(false) })
	mux.HandleFunc("POST /exit", func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(r.URL.Query().Get("code"))
		if err != nil {
			http.Error(w, "code must be a number", http.StatusBadRequest)
			return
		}
		fmt.Printf("exiting with code %d, as told\n", code)
		os.Exit(code)
	})
	mux.HandleFunc("GET /role", func(w http.ResponseWriter, _ *http.Request) {
		if a.roleDown.Load() {
			http.Error(w, "role unknown", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, *a.role.Load())
	})
	mux.HandleFunc("POST /role", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Has("down") {
			a.roleDown.Store(q.Get("down") == "true")
			return
		}
		role := q.Get("name")
		a.role.Store(&role)
	})
	mux.HandleFunc("GET /prestop", a.preStop)
	mux.HandleFunc("GET /resolve", resolve)
	mux.HandleFunc("GET /files/{name}", a.file)
	mux.HandleFunc("GET /{$}", a.status)
	return mux
}

// Status is what GET / answers.
type Status struct {
	Version string    `json:"version"`
	Pod     string    `json:"pod"`
	Started time.Time `json:"started"`
	Ready   bool      `json:"ready"`
	// Marker is the data marker's content: written by the first start on
	// the volume, read unchanged by every later one.
	Marker string `json:"marker,omitempty"`
	// Starts counts the starts recorded on the volume, this one included.
	Starts int    `json:"starts,omitempty"`
	Cgroup Limits `json:"cgroup"`
}

func (a *app) status(w http.ResponseWriter, _ *http.Request) {
	host, _ := os.Hostname()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(Status{Version: version, Pod: host, Started: a.started, Ready: a.ready.Load(),
		Marker: a.marker, Starts: a.starts, Cgroup: readLimits()})
}

func (a *app) preStop(w http.ResponseWriter, r *http.Request) {
	if a.opts.data != "" {
		if err := appendHook(a.opts.data, "prestop-http"); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	if d := r.URL.Query().Get("sleep"); d != "" {
		sleep, err := time.ParseDuration(d)
		if err != nil {
			http.Error(w, "sleep must be a duration", http.StatusBadRequest)
			return
		}
		time.Sleep(sleep)
	}
	fmt.Fprintln(w, "done")
}

func runHook(args []string) error {
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	data := fs.String("data", "", "directory of the hooks file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || fs.NArg() != 1 {
		return errors.New("usage: ordinal-testapp hook --data DIR NAME")
	}
	return appendHook(*data, fs.Arg(0))
}

// resolve looks a name up with the pod's own resolver configuration (the
// kubelet's resolv.conf: the cluster DNS and the search path) and answers
// the addresses as JSON.
func resolve(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, r.URL.Query().Get("name"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(addrs)
}

// file answers the content of one file of --files: its name alone, never
// a path, so nothing outside the directory is read.
func (a *app) file(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if a.opts.files == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		http.Error(w, "no such file", http.StatusNotFound)
		return
	}
	data, err := os.ReadFile(filepath.Join(a.opts.files, name))
	if err != nil {
		http.Error(w, "no such file", http.StatusNotFound)
		return
	}
	_, _ = w.Write(data)
}
