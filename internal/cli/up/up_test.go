package up_test

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	"k8s.io/component-base/version"

	"github.com/ordinal-sh/ordinal/internal/cli/root"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// TestMain lets the tests run this test binary as the ordinal command.
func TestMain(m *testing.M) {
	planetest.ExecMain(root.Main)
	os.Exit(planetest.RunOneAtATime(m))
}

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
	// dashboard is the URL of the dashboard line, token included.
	dashboard string
	// dns is the cluster DNS's address, from its line.
	dns string
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
	u := &upProcess{cmd: cmd, stderr: &stderr, lines: lines}
	select {
	case line := <-lines:
		url, ok := strings.CutPrefix(line, "Dashboard: ")
		if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
			t.Errorf("second line %q is not the dashboard's loopback URL with its token", line)
		}
		u.dashboard = url
	case <-time.After(time.Minute):
		t.Errorf("ordinal up printed no dashboard line; stderr:\n%s", stderr.String())
	}
	select {
	case line := <-lines:
		rest, ok := strings.CutPrefix(line, "Cluster DNS (cluster.local) at ")
		addr, _, _ := strings.Cut(rest, ":")
		if !ok || addr != "127.0.0.1" {
			t.Errorf("third line %q is not the cluster DNS's loopback address", line)
		}
		u.dns, _, _ = strings.Cut(rest, ": ")
	case <-time.After(time.Minute):
		t.Errorf("ordinal up printed no cluster DNS line; stderr:\n%s", stderr.String())
	}
	return u
}

// checkDNS asks the cluster DNS for the API server's Service.
func checkDNS(t *testing.T, addr, clusterIP string) {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion("kubernetes.default.svc.cluster.local.", dns.TypeA)
	r, _, err := (&dns.Client{Timeout: 5 * time.Second}).Exchange(m, addr)
	if err != nil {
		t.Fatalf("asking the cluster DNS at %s: %v", addr, err)
	}
	if len(r.Answer) != 1 || r.Answer[0].(*dns.A).A.String() != clusterIP {
		t.Errorf("kubernetes.default.svc.cluster.local answers %v, want %s", r.Answer, clusterIP)
	}
}

// checkDashboard fetches the dashboard's page without its token (refused)
// and with it (the page, after trading the token for a cookie).
func checkDashboard(t *testing.T, url string) {
	t.Helper()
	base, token, _ := strings.Cut(url, "?token=")
	resp, err := http.Get(base)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the dashboard without its token answered %d, want 401", resp.StatusCode)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = (&http.Client{Jar: jar, Timeout: 10 * time.Second}).Get(base + "?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.RawQuery != "" {
		t.Errorf("the dashboard with its token answered %d at %s, want 200 at the URL without the token", resp.StatusCode, resp.Request.URL)
	}
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
	kubectl := planetest.KubectlOrSkip(t)
	if v := version.Get().GitVersion; strings.Contains(v, "$Format") {
		t.Fatalf("this test binary's Kubernetes version is not stamped (%s), and kubectl cannot parse it: "+
			`run the test with go test -ldflags "$(hack/ldflags.sh)", as hack/test.sh does`, v)
	}
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
	run("apply", "-f", "../../../examples/web-osts.yaml")
	if took := up.interrupt(t); took > 10*time.Second {
		t.Errorf("stopping took %s, want at most 10s", took)
	}
	up = startUp(t, dir)
	defer up.interrupt(t)
	checkDNS(t, up.dns, run("get", "service", "kubernetes", "-o", "jsonpath={.spec.clusterIP}"))
	if got := run("get", "configmap", "survivor", "-o", "jsonpath={.data.k}"); got != "v" {
		t.Errorf("after restart the configmap holds %q, want v", got)
	}
	// The restart installed the CRD over the one it found; the set is kept.
	if got := run("get", "osts", "web", "-o", "jsonpath={.spec.replicas}"); got != "3" {
		t.Errorf("after restart the extended set web wants %q replicas, want 3", got)
	}
	if out := run("version", "-o", "json"); !strings.Contains(out, `"gitVersion": "v1.37`) {
		t.Errorf("kubectl version does not see a v1.37 server:\n%s", out)
	}
	checkDashboard(t, up.dashboard)
	_, token, _ := strings.Cut(up.dashboard, "?token=")
	assertNoSecretsLogged(t, dir, up.stderr.String(), token)
}

// assertNoSecretsLogged fails if any log in dataDir/logs, or the command's
// own output, holds a private key, a certificate, a bearer token or a
// piece of any key the plane generated.
func assertNoSecretsLogged(t *testing.T, dataDir, output string, more ...string) {
	t.Helper()
	logDir := filepath.Join(dataDir, "logs")
	entries, err := os.ReadDir(logDir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("no logs in %s: %v", logDir, err)
	}
	secrets := append([]string{"PRIVATE KEY", "BEGIN CERTIFICATE", "Bearer ", "client-key-data"}, more...)
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
	if len(secrets) < 4+len(more)+3 {
		t.Fatalf("found only %d key files under %s/pki", len(secrets)-4-len(more), dataDir)
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
		{"a dashboard off loopback", []string{"up", "--dashboard-address", "0.0.0.0:8001"}, 2, "is not a loopback address"},
		{"a bad controller flag", []string{"up", "--workers", "0"}, 1, "--workers must be at least 1, got 0"},
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
