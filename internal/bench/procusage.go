package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is USER_HZ, 100 on every Linux architecture Go supports.
const clockTicks = 100

// procSample is one reading of a process's CPU time and memory.
type procSample struct {
	CPUSeconds float64
	HWMBytes   int64 // VmHWM: peak resident set size
	RSSBytes   int64 // VmRSS
	AnonBytes  int64 // RssAnon: resident heap and stacks, without the mapped binary
}

// readProc reads /proc/<pid>/stat and /proc/<pid>/status.
func readProc(pid int) (procSample, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procSample{}, fmt.Errorf("reading stat of %d: %w", pid, err)
	}
	cpu, err := parseStatCPU(stat)
	if err != nil {
		return procSample{}, err
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procSample{}, fmt.Errorf("reading status of %d: %w", pid, err)
	}
	s := procSample{CPUSeconds: cpu}
	s.HWMBytes, s.RSSBytes = statusKB(status, "VmHWM:")*1024, statusKB(status, "VmRSS:")*1024
	s.AnonBytes = statusKB(status, "RssAnon:") * 1024
	return s, nil
}

// parseStatCPU returns utime+stime in seconds. The command name in field 2
// may hold spaces and parentheses, so fields are counted after the last ')'.
func parseStatCPU(stat []byte) (float64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc stat %q", stat)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat %q", stat)
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parsing /proc stat %q", stat)
	}
	return float64(ut+st) / clockTicks, nil
}

func statusKB(status []byte, key string) int64 {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, key) {
			continue
		}
		f := strings.Fields(line[len(key):])
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			return n
		}
	}
	return 0
}

// anonPeak samples a process's RssAnon until stop is closed and keeps the
// peak: the kernel keeps a peak only for the whole RSS (VmHWM), which here
// is dominated by the pages of the one large binary every contender shares.
type anonPeak struct {
	mu   sync.Mutex
	peak int64
}

func (a *anonPeak) sample(pid int, every time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if s, err := readProc(pid); err == nil {
			a.mu.Lock()
			a.peak = max(a.peak, s.AnonBytes)
			a.mu.Unlock()
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

func (a *anonPeak) get() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.peak
}
