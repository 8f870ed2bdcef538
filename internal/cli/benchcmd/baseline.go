package benchcmd

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/ordinal-sh/ordinal/internal/bench"
)

// defaultBaseline is where the repository keeps recorded runs, one --json
// file each, named by date (docs/benchmarks.md).
const defaultBaseline = "docs/bench-data"

// baselineFlagHelp says what --baseline compares with.
const baselineFlagHelp = "results saved with --json, or a directory of them, whose last run of the same scenario, size and limits " +
	"each contender's CPU ratio to builtin's is compared with (empty: no comparison)"

// readBaseline reads the recorded runs --baseline names (bench.ReadRecorded),
// leaving out the results rendered with --from-json. The default directory
// may be missing, when the command runs outside the repository: then there
// is nothing to compare with.
func (o *options) readBaseline() ([]bench.Recorded, error) {
	if o.baseline == "" {
		return nil, nil
	}
	if _, err := os.Stat(o.baseline); o.baseline == defaultBaseline && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return bench.ReadRecorded(o.baseline, o.fromJSON)
}

// writeComparison compares results' CPU ratios with the recorded runs and
// writes the comparison to w, when there is anything to compare with.
func (o *options) writeComparison(w io.Writer, results []bench.Result, recorded []bench.Recorded) error {
	if len(recorded) == 0 {
		return nil
	}
	return bench.WriteCPUComparison(w, bench.CompareCPU(results, recorded, o.cpuShift), o.cpuShift)
}
