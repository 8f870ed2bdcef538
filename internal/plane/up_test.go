package plane_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// ordinalCommand runs this test binary as the ordinal command.
func ordinalCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), planetest.ExecMainEnv+"=1")
	return cmd
}

// upProcess is a running `ordinal up`.
type upProcess struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	lines  chan string
}

// startUp runs `ordinal up` on dir and waits for its "is up" line.
func startUp(t *testing.T, dir string) *upProcess {
	t.Helper()
	cmd := ordinalCommand("up", "--data-dir", dir, "--port", "0", "--nodes", "1", "--statefulset-controller", "none")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case line := <-lines:
		want := "export KUBECONFIG=" + filepath.Join(dir, "kubeconfig")
		if !strings.Contains(line, want) {
			t.Errorf("first line %q does not say %q", line, want)
		}
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("ordinal up printed nothing; stderr:\n%s", stderr.String())
	}
	return &upProcess{cmd: cmd, stderr: &stderr, lines: lines}
}

// interrupt sends Ctrl-C and returns how long the process took to exit.
func (u *upProcess) interrupt(t *testing.T) time.Duration {
	t.Helper()
	began := time.Now()
	if err := u.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for range u.lines {
	}
	err := u.cmd.Wait()
	took := time.Since(began)
	if err != nil {
		t.Fatalf("ordinal up exited with %v; stderr:\n%s", err, u.stderr.String())
	}
	if !strings.Contains(u.stderr.String(), "stopped in") {
		t.Errorf("stderr does not report the stop:\n%s", u.stderr.String())
	}
	return took
}

func TestOrdinalUpStopsWithinTenSecondsAndComesBackWithItsObjects(t *testing.T) {
	dir := t.TempDir()
	kubectl := kubectlOrSkip(t)
	up := startUp(t, dir)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	run := func(args ...string) string {
		out, err := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("create", "configmap", "survivor", "--from-literal=k=v")
	run("apply", "-f", "../../examples/web-osts.yaml")
	if took := up.interrupt(t); took > 10*time.Second {
		t.Errorf("stopping took %s, want at most 10s", took)
	}
	up = startUp(t, dir)
	defer up.interrupt(t)
	if got := run("get", "configmap", "survivor", "-o", "jsonpath={.data.k}"); got != "v" {
		t.Errorf("after restart the configmap holds %q, want v", got)
	}
	// The restart installed the CRD over the one it found; the set is kept.
	if got := run("get", "osts", "web", "-o", "jsonpath={.spec.replicas}"); got != "3" {
		t.Errorf("after restart the extended set web wants %q replicas, want 3", got)
	}
	if out := run("version", "-o", "json"); !strings.Contains(out, `"gitVersion": "v1.36`) {
		t.Errorf("kubectl version does not see a v1.36 server:\n%s", out)
	}
	assertNoSecretsLogged(t, dir, up.stderr.String())
}

// assertNoSecretsLogged fails if any log in dataDir/logs, or the command's
// own output, holds a private key, a certificate, a bearer token or a
// piece of any key the plane generated.
func assertNoSecretsLogged(t *testing.T, dataDir, output string) {
	t.Helper()
	logDir := filepath.Join(dataDir, "logs")
	entries, err := os.ReadDir(logDir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("no logs in %s: %v", logDir, err)
	}
	secrets := []string{"PRIVATE KEY", "BEGIN CERTIFICATE", "Bearer ", "client-key-data"}
	err = filepath.WalkDir(filepath.Join(dataDir, "pki"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".key") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// A line from the middle of the key's base64 body.
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) < 3 {
			t.Fatalf("key file %s has %d lines", path, len(lines))
		}
		secrets = append(secrets, lines[len(lines)/2])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(secrets) < 4+3 {
		t.Fatalf("found only %d key files under %s/pki", len(secrets)-4, dataDir)
	}
	texts := map[string]string{"ordinal up's output": output}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(logDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		texts["log "+e.Name()] = string(raw)
	}
	for name, text := range texts {
		for _, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("%s contains %q", name, secret)
			}
		}
	}
}

func TestOrdinalUpFailsWithOneLineAndExitCode(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a data dir that is a file", []string{"up", "--data-dir", file, "--port", "0"}, 1, "is not a directory"},
		{"an unknown flag", []string{"up", "--bogus"}, 2, "unknown flag: --bogus"},
		{"an unknown controller", []string{"up", "--statefulset-controller", "mine"}, 1, `"mine" is not one of ordinal, builtin, none`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := ordinalCommand(c.args...)
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != c.code {
				t.Fatalf("exit %v, want code %d; stderr:\n%s", err, c.code, stderr.String())
			}
			out := strings.TrimSpace(stderr.String())
			if strings.Count(out, "\n") != 0 || !strings.HasPrefix(out, "ordinal: ") || !strings.Contains(out, c.want) {
				t.Errorf("stderr %q, want one line 'ordinal: …%s…'", out, c.want)
			}
		})
	}
}
