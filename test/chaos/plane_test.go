package chaos

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// planeProc is the package's control plane as an `ordinal up` child
// process, so a run can restart the API server, etcd and the other
// components as a whole: SIGKILL or SIGTERM, then `ordinal up` again on
// the same data directory and port.
type planeProc struct {
	dir      string // parent of the data dir; logs go here too
	dataDir  string
	port     int
	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan struct{}
	starts   int
	restarts int
}

var thePlane *planeProc

// kubeconfigPath is the plane's admin kubeconfig.
func kubeconfigPath() string { return filepath.Join(thePlane.dataDir, "kubeconfig") }

// restConfig is an admin client configuration of the plane.
func restConfig() (*rest.Config, error) {
	return clientcmd.BuildConfigFromFlags("", kubeconfigPath())
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startPlaneProc(dir string) (*planeProc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p := &planeProc{dir: dir, dataDir: filepath.Join(dir, "data"), port: port}
	return p, p.start(3 * time.Minute)
}

func (p *planeProc) logPath(n int) string { return filepath.Join(p.dir, fmt.Sprintf("up.%d.log", n)) }

// start runs `ordinal up` and waits until it says it is up.
func (p *planeProc) start(timeout time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	logPath := p.logPath(p.starts)
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(os.Args[0], "up", "--data-dir", p.dataDir, "--port", strconv.Itoa(p.port),
		"--nodes", "3", "--fqdn-nodes", "1", "--statefulset-controller", "none", "--ready-delay", "150ms", "--node-monitor-grace-period", nodeGrace.String(),
		"--feature-gates", plane.GateEvictionRequests+"=true")
	cmd.Env = append(os.Environ(), planetest.ExecMainEnv+"=1")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting ordinal up: %w", err)
	}
	p.starts++
	p.cmd = cmd
	exited := make(chan struct{})
	p.exited = exited
	go func() {
		_ = cmd.Wait()
		log.Close()
		close(exited)
	}()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(logPath)
		if bytes.Contains(data, []byte("Ordinal is up at")) {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("ordinal up exited before it was up:\n%s", data)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("ordinal up was not up within %s (log %s)", timeout, logPath)
}

// stop ends the plane: SIGKILL when kill is set, else SIGTERM (SIGKILL
// after 30s); it waits for the process to exit.
func (p *planeProc) stop(kill bool) {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-exited
	}
}

// restart stops the plane (kill: SIGKILL, else SIGTERM), keeps it down
// for down, and starts it again on the same data directory and port.
func (p *planeProc) restart(kill bool, down time.Duration) error {
	p.stop(kill)
	time.Sleep(down)
	p.mu.Lock()
	p.restarts++
	p.mu.Unlock()
	return p.start(2 * time.Minute)
}

// restartPlane restarts the API server, etcd and every other component
// of the plane; the controllers and the watcher ride it out.
func (r *run) restartPlane(ctx context.Context) bool {
	kill := r.rng.Intn(2) == 0
	down := time.Duration(r.rng.Intn(3000)) * time.Millisecond
	began := time.Now()
	err := thePlane.restart(kill, down)
	r.logf("restart API server and etcd (%s, down %s): %v, back after %s", signalName(kill), down.Round(100*time.Millisecond), errWord(err),
		time.Since(began).Round(100*time.Millisecond))
	if err != nil {
		r.t.Errorf("restarting the plane: %v", err)
		return false
	}
	waitAPI(ctx, r.client)
	return true
}

// waitAPI waits (up to a minute) until the API server answers a list.
func waitAPI(ctx context.Context, client kubernetes.Interface) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if _, err := client.Discovery().ServerVersion(); err == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
