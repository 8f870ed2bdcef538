package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// recordStart writes the data marker if the volume has none, appends this
// start to DIR/starts and returns the marker and the number of starts.
func recordStart(dir string, now time.Time) (string, int, error) {
	host, _ := os.Hostname()
	marker := filepath.Join(dir, "marker")
	raw, err := os.ReadFile(marker)
	if errors.Is(err, fs.ErrNotExist) {
		raw = fmt.Appendf(nil, "written by %s at %s", host, now.Format(time.RFC3339Nano))
		if err := os.WriteFile(marker, raw, 0o644); err != nil {
			return "", 0, fmt.Errorf("writing the data marker: %w", err)
		}
	} else if err != nil {
		return "", 0, fmt.Errorf("reading the data marker: %w", err)
	}
	line := fmt.Sprintf("%s %s %s\n", host, now.Format(time.RFC3339Nano), version)
	if err := appendLine(filepath.Join(dir, "starts"), line); err != nil {
		return "", 0, err
	}
	starts, err := os.ReadFile(filepath.Join(dir, "starts"))
	if err != nil {
		return "", 0, err
	}
	return string(raw), bytes.Count(starts, []byte("\n")), nil
}

func appendHook(dir, name string) error {
	return appendLine(filepath.Join(dir, "hooks"), name+" "+time.Now().UTC().Format(time.RFC3339Nano)+"\n")
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		_ = f.Close()
		return err
	}
	return f.Sync()
}

// Limits are the container's own cgroup limits as the kernel holds them,
// read from inside the container: the proof that a resize reached the
// cgroup, not only the API. -1 means no limit.
type Limits struct {
	Version     int   `json:"version"`
	CPUQuotaUS  int64 `json:"cpuQuotaMicros"`
	CPUPeriodUS int64 `json:"cpuPeriodMicros"`
	MemoryBytes int64 `json:"memoryBytes"`
}

func readLimits() Limits {
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		l := Limits{Version: 2, CPUQuotaUS: -1, MemoryBytes: -1}
		if f := strings.Fields(readFile("/sys/fs/cgroup/cpu.max")); len(f) == 2 {
			l.CPUQuotaUS, l.CPUPeriodUS = number(f[0]), number(f[1])
		}
		l.MemoryBytes = number(readFile("/sys/fs/cgroup/memory.max"))
		return l
	}
	l := Limits{Version: 1}
	l.CPUQuotaUS = number(readFile("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"))
	l.CPUPeriodUS = number(readFile("/sys/fs/cgroup/cpu/cpu.cfs_period_us"))
	l.MemoryBytes = number(readFile("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
	return l
}

func readFile(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(raw))
}

// number reads a cgroup value; "max", an unreadable file and v1's
// "unlimited" (a huge page-rounded number) are -1.
func number(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n >= 1<<62 {
		return -1
	}
	return n
}
