// Command testtimes says where the test command's time went: per step of
// hack/test.sh (from its "== step (at N s)" lines) and per test package
// (from `go test -json`), when each package's test binary started and
// ended, how long it ran, and how much of that it waited for the plane
// lock (planetest.OneAtATime prints "plane lock taken after D").
//
// Usage: testtimes -json FILE [-log FILE] [-start UNIX_SECONDS] [-top N]
//
// -start is when the test command began (seconds since the epoch, as
// bash's $EPOCHREALTIME gives it); package times are printed relative to
// it. Without it they are relative to the first event of the JSON file.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	jsonPath := flag.String("json", "", "the output of go test -json")
	logPath := flag.String("log", "", "the test command's output, for its steps (optional)")
	start := flag.Float64("start", 0, "when the test command began, in seconds since the epoch (optional)")
	top := flag.Int("top", 0, "print only the N packages that ran longest (0: all that ran over a second)")
	flag.Parse()
	if *jsonPath == "" {
		fmt.Fprintln(os.Stderr, "testtimes: -json FILE is required")
		os.Exit(2)
	}
	if err := run(os.Stdout, *jsonPath, *logPath, *start, *top); err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, jsonPath, logPath string, start float64, top int) error {
	if logPath != "" {
		text, err := os.ReadFile(logPath)
		if err != nil {
			return fmt.Errorf("reading the log: %w", err)
		}
		printSteps(w, parseSteps(string(text)))
	}
	f, err := os.Open(jsonPath)
	if err != nil {
		return fmt.Errorf("reading the test events: %w", err)
	}
	defer f.Close()
	pkgs, first, err := parsePackages(f)
	if err != nil {
		return err
	}
	zero := first
	if start > 0 {
		zero = time.Unix(0, int64(start*float64(time.Second)))
	}
	printPackages(w, pkgs, zero, top)
	return nil
}

// step is one "== name (at N s)" line of the test command.
type step struct {
	name string
	at   int
}

// parseSteps reads the steps' start times; the last line "== done (at N
// s)" ends the last step.
func parseSteps(text string) []step {
	var out []step
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "== ")
		if !ok {
			continue
		}
		i := strings.LastIndex(rest, " (at ")
		if i < 0 || !strings.HasSuffix(rest, " s)") {
			continue
		}
		at, err := strconv.Atoi(strings.TrimSuffix(rest[i+len(" (at "):], " s)"))
		if err != nil {
			continue
		}
		out = append(out, step{name: rest[:i], at: at})
	}
	return out
}

func printSteps(w io.Writer, steps []step) {
	fmt.Fprintln(w, "steps of the test command (seconds):")
	for i, s := range steps {
		took := "-"
		if i+1 < len(steps) {
			took = strconv.Itoa(steps[i+1].at - s.at)
		}
		fmt.Fprintf(w, "  at %5d  took %5s  %s\n", s.at, took, s.name)
	}
}
