package rollout_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/forecast"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/learn"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// rehearsable is webSet with pods that take a second to start and a
// second to stop, a PodDisruptionBudget of two and its Service, after one
// rollout, so that the rehearsal finds both times in the source.
func rehearsable(t *testing.T, ns string) *appsv1.StatefulSet {
	t.Helper()
	ctx := context.Background()
	slow := func(s *appsv1.StatefulSet) {
		s.Spec.Template.Annotations = map[string]string{"sim.ordinal.dev/ready-delay": "1s", "sim.ordinal.dev/stop-delay": "1s"}
		grace := int64(10)
		s.Spec.Template.Spec.TerminationGracePeriodSeconds = &grace
	}
	if _, err := client.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "nginx"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	two := intstr.FromInt32(2)
	if _, err := client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createWeb(t, ns, slow)
	setImage(t, ns, imageNew)
	return waitComplete(t, ns)
}

// requestLog is what a proxy saw: method and path of each request.
type requestLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *requestLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, s)
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// readOnlySource is a kubeconfig of the plane as a user RBAC lets only
// get, list and watch, reached through a proxy of the test's that logs
// every request: whatever the command under test counts of itself, the
// log says what reached the source, and the API server refuses that
// user's writes.
func readOnlySource(t *testing.T, ns string) (string, *requestLog) {
	t.Helper()
	ctx := context.Background()
	user := "rehearser-" + ns
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}},
		{NonResourceURLs: []string{"*"}, Verbs: []string{"get"}},
	}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.RbacV1().ClusterRoleBindings().Delete(context.Background(), user, metav1.DeleteOptions{})
		_ = client.RbacV1().ClusterRoles().Delete(context.Background(), user, metav1.DeleteOptions{})
	})
	rc := planetest.Plane().RESTConfig()
	rc.Impersonate = rest.ImpersonationConfig{UserName: user}
	transport, err := rest.TransportFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(rc.Host)
	if err != nil {
		t.Fatal(err)
	}
	log := &requestLog{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport, proxy.FlushInterval = transport, -1
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r.Method + " " + r.URL.RequestURI())
		r.Header.Del("Authorization")
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(server.Close)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["source"] = &clientcmdapi.Cluster{Server: server.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})}
	cfg.AuthInfos["reader"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["source"] = &clientcmdapi.Context{Cluster: "source", AuthInfo: "reader", Namespace: ns}
	cfg.CurrentContext = "source"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path, log
}

// rehearse runs `ordinal rehearse` as its own process, which starts a
// plane of its own, and reads its JSON forecast.
func rehearse(t *testing.T, args ...string) (forecast.Forecast, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"rehearse", "-o", "json"}, args...)...)
	cmd.Env = append(os.Environ(), execMainEnv+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	began := time.Now()
	err := cmd.Run()
	t.Logf("$ ordinal rehearse %s  (%s)\n%s", strings.Join(args, " "), time.Since(began).Round(time.Second), errOut.String())
	if err != nil {
		t.Fatalf("ordinal rehearse: %v\n%s", err, errOut.String())
	}
	var f forecast.Forecast
	if err := json.Unmarshal(out.Bytes(), &f); err != nil {
		t.Fatalf("reading the forecast: %v\n%s", err, out.String())
	}
	return f, errOut.String()
}

// podUIDs are the set's pods' UIDs by name.
func podUIDs(t *testing.T, ns string) map[string]string {
	t.Helper()
	list, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range list.Items {
		out[p.Name] = string(p.UID)
	}
	return out
}

// The rehearsal reads its source as a user who may only read, through a
// proxy that logs every request: every request is a GET, the forecast
// counts as many as reached the source, the set and its pods are as they
// were, and each controller's rollout of the change completes, keeping
// the budget, with the times the source's pods showed.
func TestARehearsalReadsItsSourceOnlyAndForecastsEachController(t *testing.T) {
	ns := namespace(t)
	set := rehearsable(t, ns)
	uids := podUIDs(t, ns)
	kc, log := readOnlySource(t, ns)

	// The check can fail: a write through the proxy is logged, and the
	// API server refuses it for this user.
	probe, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	err = kubernetes.NewForConfigOrDie(probe).CoreV1().ConfigMaps(ns).Delete(context.Background(), "nothing", metav1.DeleteOptions{})
	if !apierrors.IsForbidden(err) || !strings.HasPrefix(log.all()[0], "DELETE ") {
		t.Fatalf("a delete as the read-only user: %v, logged %q; want Forbidden and logged", err, log.all())
	}
	before := len(log.all())

	out := t.TempDir()
	f, _ := rehearse(t, "--kubeconfig", kc, "web", "--image", "registry.k8s.io/nginx-slim:0.10", "--output-dir", out)

	sent := log.all()[before:]
	for _, r := range sent {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("the rehearsal sent %s to its source", r)
		}
	}
	if f.Source.Writes != 0 || f.Source.Reads != len(sent) {
		t.Errorf("the forecast counts %d reads and %d writes; the proxy saw %d requests", f.Source.Reads, f.Source.Writes, len(sent))
	}
	// Its status is the source's controller's to write meanwhile.
	if now := getSet(t, ns); now.Generation != set.Generation || !maps.Equal(now.Labels, set.Labels) || !maps.Equal(now.Annotations, set.Annotations) {
		t.Errorf("the source set changed: generation %d, labels %v, annotations %v; was %d, %v, %v",
			now.Generation, now.Labels, now.Annotations, set.Generation, set.Labels, set.Annotations)
	}
	if now := podUIDs(t, ns); !maps.Equal(now, uids) {
		t.Errorf("the source's pods changed: %v, were %v", now, uids)
	}
	checkLearned(t, f.Learned)
	if len(f.Runs) != 3 {
		t.Fatalf("%d runs, want built-in, ordinal and ordinal-extended", len(f.Runs))
	}
	for _, r := range f.Runs {
		// Three pods one after another, each a second to stop and a second
		// or so to start.
		if r.Outcome != forecast.Completed || r.Seconds.D() < 4*time.Second || r.Seconds.D() > 40*time.Second {
			t.Errorf("%s: %s in %s, want completed in 4s to 40s", r.Controller, r.Outcome, r.Seconds)
		}
		if r.MinReady != 2 || len(r.Budgets) != 1 || !r.Budgets[0].Kept() || r.WritesTotal == 0 {
			t.Errorf("%s: fewest Ready %d, budgets %+v, %d writes; want 2, the budget kept, writes counted", r.Controller, r.MinReady, r.Budgets, r.WritesTotal)
		}
		if !slices.ContainsFunc(r.Waits, func(w forecast.Wait) bool { return w.Category == "readiness" }) {
			t.Errorf("%s: waits %+v, want waits for readiness", r.Controller, r.Waits)
		}
	}
	for _, name := range []string{"web-rehearsal.json", "web-rehearsal.svg"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("the forecast was not saved: %v", err)
		}
	}
}

// checkLearned wants every pod's times from its own trace: a second to
// start (the conditions keep whole seconds) and to stop.
func checkLearned(t *testing.T, l learn.Timings) {
	t.Helper()
	if len(l.Pods) != 3 {
		t.Fatalf("learned %d pods, want 3", len(l.Pods))
	}
	for _, p := range l.Pods {
		if p.StartUpFrom != learn.FromConditions || p.StartUp.D() > 3*time.Second || p.ShutdownFrom != learn.FromEvents || p.Shutdown.D() > 4*time.Second {
			t.Errorf("learned %+v, want a start-up from its conditions and a shutdown from the events, each a few seconds", p)
		}
	}
}

// With a new revision that never becomes Ready, apps/v1 stops at the
// first pod it replaced, under upstream's controller and Ordinal's
// alike, and waits for a person; the extended kind rolls back on its
// own after its progress deadline and ends with every pod at the old
// revision, Ready.
func TestAFailingRevisionLeavesAppsV1StuckAndRollsTheExtendedKindBack(t *testing.T) {
	ns := namespace(t)
	rehearsable(t, ns)
	f, _ := rehearse(t, "--kubeconfig", kubeconfig, "-n", ns, "web", "--image", "registry.k8s.io/nginx-slim:0.10",
		"--new-revision-fails", "--progress-deadline", "10s", "--stuck-after", "20s", "--output-dir", "")
	if len(f.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(f.Runs))
	}
	for _, r := range f.Runs[:2] {
		if r.Outcome != forecast.Stuck || r.StuckAt == nil || r.StuckAt.Pod != "web-2" || r.StuckAt.Category != "readiness" {
			t.Errorf("%s: %s at %+v, want stuck waiting for web-2 to be Ready", r.Controller, r.Outcome, r.StuckAt)
		}
	}
	ext := f.Runs[2]
	rolledBack := slices.ContainsFunc(ext.Events, func(e forecast.Event) bool { return e.Reason == "RolledBack" })
	if ext.Outcome != forecast.RolledBack || !rolledBack {
		t.Errorf("ordinal-extended: %s, events %+v; want rolled back with a RolledBack event", ext.Outcome, ext.Events)
	}
	last := ext.Pods[len(ext.Pods)-1]
	if seg := last.Segments[len(last.Segments)-1]; seg.Revision != ext.From || seg.State != forecast.Ready {
		t.Errorf("web-2 ends %+v, want Ready at the revision it started from, %s", seg, ext.From)
	}
	for _, want := range []string{"built-in is stuck at web-2", "ordinal is stuck at web-2", "ordinal-extended rolls back on its own"} {
		if !strings.Contains(f.Verdict, want) {
			t.Errorf("verdict %q misses %q", f.Verdict, want)
		}
	}
}

// A bad change or flag is refused with one line before the rehearsal
// starts anything, and the source is left alone.
func TestARehearsalRefusesBadInputBeforeItStarts(t *testing.T) {
	ns := namespace(t)
	before := createWeb(t, ns)
	for _, tt := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no change", []string{"rehearse", "web"}, 2,
			"ordinal: nothing to rehearse: give the change with -f, --image or --set (or --new-revision-fails)"},
		{"a field the kind does not have", []string{"rehearse", "web", "--set", "spec.replica=3"}, 2,
			`ordinal: --set spec.replica=3: the changed set does not read as a StatefulSet: json: unknown field "replica"`},
		{"an unknown container", []string{"rehearse", "web", "--image", "app=x"}, 2,
			`ordinal: --image app=x: the template has no container "app" (it has nginx)`},
		{"an unknown failure", []string{"rehearse", "web", "--image", "x", "--new-revision-fails=slow"}, 2,
			`ordinal: --new-revision-fails "slow": want one of never-ready, crash-loop, fail, image-pull-error`},
		{"an unknown controller", []string{"rehearse", "web", "--image", "x", "--controllers", "kcm"}, 2,
			`ordinal: unknown controller "kcm": want builtin, ordinal or extended`},
		{"an unknown output", []string{"rehearse", "web", "--image", "x", "-o", "yaml"}, 2,
			`ordinal: -o "yaml": want text or json`},
		{"an unknown set", []string{"rehearse", "nope", "--image", "x"}, 1,
			`ordinal: reading nope: statefulsets.apps "nope" not found`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ordinal(t, ns, tt.args...)
			if r.code != tt.code || r.err != tt.err+"\n" || r.out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit %d, stderr %q", r.code, r.err, r.out, tt.code, tt.err)
			}
		})
	}
	if after := getSet(t, ns); after.Generation != before.Generation {
		t.Errorf("a bad rehearsal changed the set: generation %d -> %d", before.Generation, after.Generation)
	}
}
