package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// ReadRecorded reads the recorded runs at path, oldest first: one results
// file written with --json, or every .json file of a directory in name
// order (the repository's docs/bench-data names each by the date it was
// recorded). skip, when it is one of them (results being rendered again),
// is left out.
func ReadRecorded(path, skip string) ([]Recorded, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading the recorded runs: %w", err)
	}
	files := []string{path}
	if info.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.json")); err != nil {
			return nil, fmt.Errorf("listing the recorded runs in %s: %w", path, err)
		}
		slices.Sort(files)
	}
	var out []Recorded
	for _, f := range files {
		if skip != "" && sameFile(f, skip) {
			continue
		}
		results, err := readResultsFile(f)
		if err != nil {
			return nil, fmt.Errorf("recorded run %s: %w", f, err)
		}
		out = append(out, Recorded{Source: f, Results: results})
	}
	return out, nil
}

func readResultsFile(path string) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening results: %w", err)
	}
	defer f.Close()
	return ReadJSON(f)
}

func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}
