package chaos

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/faults"
	"github.com/ordinal-sh/ordinal/internal/invariant"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// replica is one supervised controller child process, `ordinal
// controller` or upstream's controller (startBuiltin): when it exits
// (killed, or lost its lease) it is started again, as a Deployment would,
// until stopped.
type replica struct {
	name string
	args []string
	dir  string

	mu      sync.Mutex
	cmd     *exec.Cmd
	starts  int
	stopped bool
	exited  chan struct{}
	done    chan struct{}
}

func startReplica(dir, name, ns string, faultRate float64, faultSeed int64) *replica {
	// The hook endpoint (hookEndpoint) listens on loopback, which a
	// controller refuses hooks by default.
	args := []string{"controller", "--kubeconfig", kubeconfigPath(),
		"--leader-elect=true", "--leader-elect-namespace", ns, "--leader-elect-name", "ordinal-chaos",
		"--namespace", ns, "--read-nodes", "--node-loss-quarantine", quarantine.String(), "--metrics-address", "", "--hook-allow-cidrs", "127.0.0.0/8",
		"--simulated-pods-socket", filepath.Join(thePlane.dataDir, nodes.ProbeSocketName)}
	if faultRate > 0 {
		args = append(args, "--fault-rate", strconv.FormatFloat(faultRate, 'g', -1, 64), "--fault-seed", strconv.FormatInt(faultSeed, 10))
	}
	return supervise(dir, name, args)
}

// startBuiltin runs upstream's StatefulSet controller as `ordinal bench`
// runs it (the hidden bench-builtin-controller command), limited to
// namespace ns and with feature gate MaxUnavailableStatefulSet on, as the
// plane's API server has it.
func startBuiltin(dir, name, ns string) *replica {
	return supervise(dir, name, []string{"bench-builtin-controller", "--kubeconfig", kubeconfigPath(),
		"--namespace", ns, "--max-unavailable-gate=true", "--leader-elect=false", "--metrics-address", ""})
}

// supervise starts the ordinal command with args as a supervised process.
func supervise(dir, name string, args []string) *replica {
	r := &replica{name: name, args: args, dir: dir, done: make(chan struct{})}
	go r.supervise()
	return r
}

func (r *replica) logPath(n int) string {
	return filepath.Join(r.dir, fmt.Sprintf("%s.%d.log", r.name, n))
}

func (r *replica) supervise() {
	defer close(r.done)
	for {
		r.mu.Lock()
		if r.stopped {
			r.mu.Unlock()
			return
		}
		cmd := exec.Command(os.Args[0], r.args...)
		cmd.Env = append(os.Environ(), planetest.ExecMainEnv+"=1")
		log, err := os.Create(r.logPath(r.starts))
		if err == nil {
			cmd.Stdout, cmd.Stderr = log, log
			err = cmd.Start()
		}
		r.starts++
		r.cmd = cmd
		r.exited = make(chan struct{})
		exited := r.exited
		r.mu.Unlock()
		if err == nil {
			_ = cmd.Wait()
		}
		if log != nil {
			_ = log.Close()
		}
		close(exited)
		time.Sleep(300 * time.Millisecond)
	}
}

// kill sends SIGKILL to the running process; the supervisor restarts it.
func (r *replica) kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Signal(syscall.SIGKILL)
	}
}

// stop ends the process with SIGTERM (so it releases its lease), SIGKILL
// after 10s, and stops supervising.
func (r *replica) stop() { r.halt(syscall.SIGTERM) }

// halt stops supervising and ends the process with sig (SIGKILL when it
// is still running 10s later); it returns once the process has exited, so
// the controller makes no more requests.
func (r *replica) halt(sig syscall.Signal) {
	r.mu.Lock()
	r.stopped = true
	cmd, exited := r.cmd, r.exited
	r.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(sig)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	<-r.done
}

// leads reports whether the current process acquired the lease.
func (r *replica) leads() bool {
	r.mu.Lock()
	n := r.starts - 1
	r.mu.Unlock()
	data, err := os.ReadFile(r.logPath(n))
	return err == nil && bytes.Contains(bytes.ToLower(data), []byte("successfully acquired lease"))
}

// faults counts the API faults injected over all of the replica's
// processes.
func (r *replica) faults() int {
	r.mu.Lock()
	n := r.starts
	r.mu.Unlock()
	total := 0
	for i := 0; i < n; i++ {
		data, _ := os.ReadFile(r.logPath(i))
		total += bytes.Count(data, []byte(faults.LogMessage))
	}
	return total
}

// secretMarkers are strings that only a logged key, certificate or token
// would contain.
var secretMarkers = []string{"PRIVATE KEY", "BEGIN CERTIFICATE", "Bearer ", "client-key-data", "client-certificate-data"}

// secretsLogged reports every controller log of the run that contains a
// secret marker: the controllers must never log credentials, faults or not.
func (r *run) secretsLogged() []invariant.Violation {
	var vs []invariant.Violation
	for _, rep := range r.replicas {
		rep.mu.Lock()
		n := rep.starts
		rep.mu.Unlock()
		for i := 0; i < n; i++ {
			data, _ := os.ReadFile(rep.logPath(i))
			for _, m := range secretMarkers {
				if bytes.Contains(data, []byte(m)) {
					vs = append(vs, invariant.Violation{Rule: "no-secrets-logged", Object: rep.logPath(i), Message: "the controller log contains " + m})
				}
			}
		}
	}
	return vs
}

// The log scan of TestChaos finds a key a controller would have logged.
func TestSecretsLoggedFindsAKeyInAControllerLog(t *testing.T) {
	rep := &replica{name: "leaky", dir: t.TempDir(), starts: 2}
	if err := os.WriteFile(rep.logPath(0), []byte("I1122 started\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rep.logPath(1), []byte("E1122 oops -----BEGIN EC PRIVATE KEY-----\nMHc...\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vs := (&run{replicas: []*replica{rep}}).secretsLogged()
	if len(vs) != 1 || !strings.Contains(vs[0].Message, "PRIVATE KEY") || vs[0].Object != rep.logPath(1) {
		t.Errorf("violations %v, want one for PRIVATE KEY in %s", vs, rep.logPath(1))
	}
}
