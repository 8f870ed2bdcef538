package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const events = `{"Time":"2026-11-28T10:00:10Z","Action":"start","Package":"example.com/a"}
{"Time":"2026-11-28T10:00:11Z","Action":"output","Package":"example.com/a","Output":"waiting for another test package's plane to finish (lock /tmp/x)\n"}
{"Time":"2026-11-28T10:01:00Z","Action":"output","Package":"example.com/a","Output":"plane lock taken after 49s\n"}
{"Time":"2026-11-28T10:01:05Z","Action":"pass","Package":"example.com/a","Test":"TestOne","Elapsed":5}
{"Time":"2026-11-28T10:01:10Z","Action":"pass","Package":"example.com/a","Elapsed":60.2}
{"Time":"2026-11-28T10:00:05Z","Action":"start","Package":"example.com/b"}
{"Time":"2026-11-28T10:00:07Z","Action":"fail","Package":"example.com/b","Elapsed":2.1}
{"Time":"2026-11-28T10:00:20Z","Action":"start","Package":"example.com/d"}
{"Time":"2026-11-28T10:00:20Z","Action":"output","Package":"example.com/d","Output":"plane lock taken after 3m0s\n"}
{"Time":"2026-11-28T10:00:20Z","Action":"output","Package":"example.com/d","Output":"ok  \texample.com/d\t(cached)\n"}
{"Time":"2026-11-28T10:00:20Z","Action":"pass","Package":"example.com/d","Elapsed":0}
{"Action":"build-output","ImportPath":"example.com/c [example.com/c.test]","Output":"x"}
not json: the go command's own words
`

func TestPackagesAreOrderedByStartWithTheirLockWait(t *testing.T) {
	pkgs, first, err := parsePackages(strings.NewReader(events))
	if err != nil {
		t.Fatal(err)
	}
	if got := first.Format("15:04:05"); got != "10:00:10" {
		t.Errorf("first event at %s, want 10:00:10", got)
	}
	type row struct {
		Name, Result    string
		Elapsed, Waited float64
		BeganSinceFirst float64
	}
	var got []row
	for _, p := range pkgs {
		got = append(got, row{p.name, p.result, p.elapsed.Seconds(), p.waited.Seconds(), p.began.Sub(first).Seconds()})
	}
	want := []row{
		{"example.com/b", "fail", 2.1, 0, -5},
		{"example.com/a", "pass", 60.2, 49, 0},
		{"example.com/d", "pass", 0, 0, 10}, // cached: the replayed wait is the earlier run's
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
}

func TestStepsTakeUntilTheNextStep(t *testing.T) {
	log := "== gofmt (at 0 s)\nx\n== go vet (at 3 s)\n== not a step\n== go test (at 90 s)\n== done (at 1000 s)\n"
	var out bytes.Buffer
	printSteps(&out, parseSteps(log))
	want := "steps of the test command (seconds):\n" +
		"  at     0  took     3  gofmt\n" +
		"  at     3  took    87  go vet\n" +
		"  at    90  took   910  go test\n" +
		"  at  1000  took     -  done\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

func TestTheReportCountsEveryPackageAndShowsTheSlowOnes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.json")
	if err := os.WriteFile(path, []byte(events), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(&out, path, "", 0, 1); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"example.com/a", "3 packages ran 62 s of test binaries, 49 s of it waiting for the plane lock"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "example.com/b") {
		t.Errorf("-top 1 shows the shorter package too:\n%s", text)
	}
}
