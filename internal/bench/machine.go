package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// Machine describes where a report was measured.
type Machine struct {
	CPUs      int
	CPUModel  string
	MemTotal  string
	LoadStart string
	LoadEnd   string
	Started   time.Time
	Finished  time.Time
	// From names the saved results a report was rendered from; the
	// machine and load of the run itself are then not known.
	From string
}

// DescribeMachine reads nproc, the CPU model and memory from /proc.
func DescribeMachine() Machine {
	return Machine{CPUs: runtime.NumCPU(), CPUModel: procField("/proc/cpuinfo", "model name"),
		MemTotal: procField("/proc/meminfo", "MemTotal"), LoadStart: LoadAverage(), Started: time.Now()}
}

// LoadAverage returns the first three fields of /proc/loadavg.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// WriteReport writes a Markdown report: machine, command, table and a link
// to the chart.
func WriteReport(w io.Writer, m Machine, command, svgName string, results []Result) error {
	if m.From != "" {
		fmt.Fprintf(w, "## Results from %s\n\n", m.From)
		fmt.Fprintf(w, "- rendered %s; the run's machine and load are not in the saved results\n",
			m.Started.UTC().Format("2006-01-02 15:04 MST"))
	} else {
		fmt.Fprintf(w, "## Run of %s\n\n", m.Started.UTC().Format("2006-01-02 15:04 MST"))
		fmt.Fprintf(w, "- machine: %d CPUs (`nproc`), %s, memory %s\n", m.CPUs, m.CPUModel, m.MemTotal)
		fmt.Fprintf(w, "- load average (1, 5, 15 min): %s at start, %s at end; took %s\n",
			m.LoadStart, m.LoadEnd, m.Finished.Sub(m.Started).Round(time.Second))
	}
	fmt.Fprintf(w, "- command: `%s`\n\n", command)
	if err := WriteTable(w, results); err != nil {
		return err
	}
	if svgName != "" {
		fmt.Fprintf(w, "\n![wall time as a multiple of the floor](%s)\n", svgName)
	}
	return nil
}
