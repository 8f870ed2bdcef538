package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"time"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// pkg is what one test package's binary did.
type pkg struct {
	name       string
	began, end time.Time
	elapsed    time.Duration // as go test reports it: the binary's run
	waited     time.Duration // for the plane lock
	result     string        // pass, fail or skip
	cached     bool          // go test replayed a cached result
}

// lockTaken is planetest.OneAtATime's line once it has waited.
var lockTaken = regexp.MustCompile(`plane lock taken after ([0-9a-z.]+)`)

// cachedResult is the end of go test's line for a result it replayed from
// its cache, whose output (lock waits too) is the earlier run's.
var cachedResult = regexp.MustCompile(`^ok\s.*\(cached\)`)

// parsePackages reads the events and returns the packages that ran a test
// binary, and the time of the first event.
func parsePackages(r io.Reader) ([]*pkg, time.Time, error) {
	byName := map[string]*pkg{}
	var first time.Time
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Package == "" {
			continue // a line the go command printed itself
		}
		if first.IsZero() && !e.Time.IsZero() {
			first = e.Time
		}
		p := byName[e.Package]
		if p == nil {
			p = &pkg{name: e.Package}
			byName[e.Package] = p
		}
		p.add(e)
	}
	if err := sc.Err(); err != nil {
		return nil, first, fmt.Errorf("reading the test events: %w", err)
	}
	var out []*pkg
	for _, p := range byName {
		if p.cached {
			p.waited = 0
		}
		if !p.began.IsZero() && p.result != "" {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *pkg) int { return a.began.Compare(b.began) })
	return out, first, nil
}

func (p *pkg) add(e event) {
	switch {
	case e.Action == "start":
		p.began = e.Time
	case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
		p.result, p.end = e.Action, e.Time
		p.elapsed = time.Duration(e.Elapsed * float64(time.Second))
	case e.Action == "output" && cachedResult.MatchString(e.Output):
		p.cached = true
	case e.Action == "output":
		if m := lockTaken.FindStringSubmatch(e.Output); m != nil {
			if d, err := time.ParseDuration(m[1]); err == nil {
				p.waited = d
			}
		}
	}
}

func printPackages(w io.Writer, pkgs []*pkg, zero time.Time, top int) {
	shown := pkgs
	if top > 0 {
		shown = slices.Clone(pkgs)
		slices.SortStableFunc(shown, func(a, b *pkg) int { return int(b.elapsed - a.elapsed) })
		shown = shown[:min(top, len(shown))]
		slices.SortFunc(shown, func(a, b *pkg) int { return a.began.Compare(b.began) })
	}
	var ran, waited time.Duration
	fmt.Fprintln(w, "test packages (seconds from the start; wall = the binary's run, of which waiting for the plane lock):")
	fmt.Fprintf(w, "  %7s %7s %7s %7s  %-4s %s\n", "began", "ended", "wall", "waited", "", "package")
	for _, p := range pkgs {
		ran += p.elapsed
		waited += p.waited
	}
	for _, p := range shown {
		if top == 0 && p.elapsed < time.Second {
			continue
		}
		fmt.Fprintf(w, "  %7.0f %7.0f %7.0f %7.0f  %-4s %s\n", p.began.Sub(zero).Seconds(), p.end.Sub(zero).Seconds(),
			p.elapsed.Seconds(), p.waited.Seconds(), p.result, p.name)
	}
	fmt.Fprintf(w, "  %d packages ran %.0f s of test binaries, %.0f s of it waiting for the plane lock\n",
		len(pkgs), ran.Seconds(), waited.Seconds())
}
