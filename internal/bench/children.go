package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ordinal-sh/ordinal/internal/child"
)

// startProcess runs binary with args, with the harness's environment
// and env; stderr (and stdout unless watched) go to logPath.
func startProcess(name, binary string, args, env []string, logPath string, stdout io.Writer) (*child.Process, error) {
	return child.Start(child.Options{Name: name, Binary: binary, Args: args, Env: append(os.Environ(), env...),
		Log: logPath, Stdout: stdout})
}

// alive returns an error, with the end of its log, once p has exited.
func alive(p *child.Process) error {
	if err := p.Exited(); err != nil {
		return fmt.Errorf("%w early: %s; see %s", err, p.LastLines(3), p.LogPath())
	}
	return nil
}

// upLine is what `ordinal bench-plane` (like `ordinal up`) prints once ready.
const upLine = "Ordinal is up"

// startPlane runs a fresh plane in dir and returns it with its kubeconfig.
func startPlane(ctx context.Context, cfg Config, dir string) (*child.Process, string, error) {
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
	go func() { <-p.Done(); _ = pw.Close() }()
	select {
	case <-up:
		return p, filepath.Join(dir, "plane", "kubeconfig"), nil
	case <-p.Done():
		return nil, "", fmt.Errorf("%w before it was up: %s; see %s", p.Exited(), p.LastLines(3), p.LogPath())
	case <-time.After(4 * time.Minute):
		_ = p.Stop(syscall.SIGKILL, time.Second)
		return nil, "", errors.New("plane not up after 4m")
	case <-ctx.Done():
		_ = p.Stop(syscall.SIGINT, 30*time.Second)
		return nil, "", ctx.Err()
	}
}
