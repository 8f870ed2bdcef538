package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// process is a child the harness started: a plane or a contender.
type process struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	err  error
}

// startProcess runs binary with args; stderr (and stdout unless watched)
// go to logPath.
func startProcess(name, binary string, args, env []string, logPath string, stdout io.Writer) (*process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating log for %s: %w", name, err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = log
	cmd.Stdout = log
	if stdout != nil {
		cmd.Stdout = stdout
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, binary, err)
	}
	p := &process{name: name, cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exitErr is how the process ended, once it has: its error, or "exit
// status 0" for a clean exit.
func (p *process) exitErr() error {
	if p.err == nil {
		return errors.New("exit status 0")
	}
	return p.err
}

// alive returns an error once the process has exited.
func (p *process) alive() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited early (%w): %s; see %s", p.name, p.exitErr(), lastLines(p.log.Name(), 3), p.log.Name())
	default:
		return nil
	}
}

// stop signals the process, waits up to grace, then kills it.
func (p *process) stop(sig os.Signal, grace time.Duration) {
	defer p.log.Close()
	if p.alive() != nil {
		return
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// upLine is what `ordinal bench-plane` (like `ordinal up`) prints once ready.
const upLine = "Ordinal is up"

// startPlane runs a fresh plane in dir and returns it with its kubeconfig.
func startPlane(ctx context.Context, cfg Config, dir string) (*process, string, error) {
	pr, pw := io.Pipe()
	args := []string{"bench-plane", "--data-dir", filepath.Join(dir, "plane"), "--nodes", fmt.Sprint(cfg.Nodes),
		"--ready-delay", cfg.PlaneReadyDelay.String()}
	p, err := startProcess("plane", cfg.Binary, args, cfg.Env, filepath.Join(dir, "plane.log"), pw)
	if err != nil {
		return nil, "", err
	}
	up := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		once := false
		for sc.Scan() {
			if !once && strings.Contains(sc.Text(), upLine) {
				once = true
				close(up)
			}
		}
	}()
	go func() { <-p.done; _ = pw.Close() }()
	select {
	case <-up:
		return p, filepath.Join(dir, "plane", "kubeconfig"), nil
	case <-p.done:
		return nil, "", fmt.Errorf("plane exited before it was up (%w): %s; see %s", p.exitErr(), lastLines(p.log.Name(), 3), p.log.Name())
	case <-time.After(4 * time.Minute):
		p.stop(syscall.SIGKILL, time.Second)
		return nil, "", errors.New("plane not up after 4m")
	case <-ctx.Done():
		p.stop(syscall.SIGINT, 30*time.Second)
		return nil, "", ctx.Err()
	}
}

// lastLines returns the last n non-empty lines of the file at path, joined
// by " | ", so a failure keeps its reason after the run's directory is gone.
func lastLines(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "no log: " + err.Error()
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "empty log"
	}
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}
