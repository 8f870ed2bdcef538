// Package child starts and stops the child processes the benchmark
// harness and the real node supervise: each with its output in a log file
// of its own, killed if the parent dies, and stopped by a signal, a grace
// period and then SIGKILL.
package child

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// headerPrefix starts the line Start writes to the log before each start.
const headerPrefix = "---- "

// Options say what to start and where its output goes.
type Options struct {
	// Name names the process in errors: "kubelet", "plane".
	Name string
	// Binary and Args are the command line.
	Binary string
	Args   []string
	// Env is the whole environment; nil inherits the parent's.
	Env []string
	// Log is the file the output is appended to (created 0600), after a
	// line with the time and the command line.
	Log string
	// Stdout, if set, receives the standard output instead of Log.
	Stdout io.Writer
	// OwnGroup puts the child in a process group of its own, so that a
	// Ctrl-C at the terminal reaches only the parent, which stops its
	// children in order.
	OwnGroup bool
}

// Process is a started child.
type Process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // how it ended, once done is closed
}

// Start starts the process described by o.
func Start(o Options) (*Process, error) {
	log, err := os.OpenFile(o.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%s's log: %w", o.Name, err)
	}
	fmt.Fprintf(log, "%s%s: %s %v\n", headerPrefix, time.Now().UTC().Format(time.RFC3339), o.Binary, o.Args)
	cmd := exec.Command(o.Binary, o.Args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = o.Env, log, log
	if o.Stdout != nil {
		cmd.Stdout = o.Stdout
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: o.OwnGroup, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", o.Name, o.Binary, err)
	}
	p := &Process{name: o.Name, cmd: cmd, log: o.Log, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = log.Close()
		close(p.done)
	}()
	return p, nil
}

// Done is closed once the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Name is the name it was started with.
func (p *Process) Name() string { return p.name }

// Pid is its process ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// LogPath is the file its output goes to.
func (p *Process) LogPath() string { return p.log }

// LastLines returns the last n lines of its log that are neither blank
// nor the header lines Start writes, joined by " | ", so that an error can
// carry the reason after the log is gone.
func (p *Process) LastLines(n int) string {
	b, err := os.ReadFile(p.log)
	if err != nil {
		return "no log: " + err.Error()
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, headerPrefix) {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "empty log"
	}
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// Exited returns an error saying how the process ended, or nil while it
// runs. A clean exit is an error too: these children are meant to run
// until stopped.
func (p *Process) Exited() error {
	select {
	case <-p.done:
		if p.err == nil {
			return errors.New(p.name + " exited (exit status 0)")
		}
		return fmt.Errorf("%s exited (%w)", p.name, p.err)
	default:
		return nil
	}
}

// Stop sends sig, waits up to grace, then kills the process. It returns
// an error if the process had to be killed or would not die; it is safe
// to call more than once and on a process that has ended.
func (p *Process) Stop(sig os.Signal, grace time.Duration) error {
	if p == nil || p.Exited() != nil {
		return nil
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	select {
	case <-p.done:
		return fmt.Errorf("%s did not stop within %s of %s; killed", p.name, grace, sig)
	case <-time.After(5 * time.Second):
		return errors.New(p.name + " did not die after SIGKILL")
	}
}
