package podcall

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// roleApps are the role endpoints of "pods" on 127.0.0.2, .3 and .4, one
// port for all as a set's pods have: each answers what answer holds for
// it (a status code and a body).
type roleApps struct {
	port int
	mu   sync.Mutex
	// answers by address: "200 leader", "503 ", "hang" (until the caller
	// gives up), "hold" (503 once hold lets it go).
	answers map[string]string
	hold    chan struct{}
	calls   map[string]int
	// inFlight and maxInFlight count the calls being answered at once.
	inFlight, maxInFlight int
}

func startRoleApps(t *testing.T) *roleApps {
	t.Helper()
	a := &roleApps{answers: map[string]string{}, calls: map[string]int{}, hold: make(chan struct{})}
	addrs := []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"}
	for attempt := 0; ; attempt++ {
		var ls []net.Listener
		l, err := net.Listen("tcp", addrs[0]+":0")
		if err != nil {
			t.Skipf("cannot listen on %s: %v", addrs[0], err)
		}
		ls = append(ls, l)
		a.port = l.Addr().(*net.TCPAddr).Port
		for _, addr := range addrs[1:] {
			if l, err = net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(a.port))); err != nil {
				break
			}
			ls = append(ls, l)
		}
		if len(ls) == len(addrs) {
			for _, l := range ls {
				srv := &http.Server{Handler: a, ReadHeaderTimeout: 5 * time.Second}
				go func() { _ = srv.Serve(l) }()
				t.Cleanup(func() { _ = srv.Close() })
			}
			return a
		}
		for _, l := range ls {
			_ = l.Close()
		}
		if attempt == 5 {
			t.Fatalf("no port free on %v: %v", addrs, err)
		}
	}
}

func (a *roleApps) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	local := r.Context().Value(http.LocalAddrContextKey).(net.Addr).(*net.TCPAddr).IP.String()
	a.mu.Lock()
	a.calls[local]++
	answer := a.answers[local]
	a.inFlight++
	a.maxInFlight = max(a.maxInFlight, a.inFlight)
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.inFlight--
		a.mu.Unlock()
	}()
	if r.URL.Path != "/role" || r.Method != http.MethodGet {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	switch answer {
	case "hang":
		<-r.Context().Done()
		return
	case "hold":
		select {
		case <-a.hold:
			w.WriteHeader(http.StatusServiceUnavailable)
		case <-r.Context().Done():
		}
		return
	}
	code, body, _ := strings.Cut(answer, " ")
	n, _ := strconv.Atoi(code)
	w.WriteHeader(n)
	fmt.Fprint(w, body)
}

func (a *roleApps) answer(addr, answer string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answers[addr] = answer
}

// probeFixture is a prober over a fake client holding web-0…2 of a set
// whose pods have the addresses of roleApps.
type probeFixture struct {
	p      *roleProber
	client *fake.Clientset
	events *record.FakeRecorder
	set    *v1alpha1.StatefulSet
	loop   *probeLoop
}

func newProbeFixture(t *testing.T, port int, allow []netip.Prefix) *probeFixture {
	t.Helper()
	set := &v1alpha1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "set-uid"}}
	set.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{{Name: "leader", Exclusive: true}, {Name: "follower"}},
		RoleProbe: &v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: int32(port), Path: "/role"}, PeriodSeconds: 1, TimeoutSeconds: 1, FailureThreshold: 3}}
	client := fake.NewClientset()
	for i := range 3 {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("web-%d", i), UID: types.UID(fmt.Sprintf("pod-%d", i)),
			Labels: map[string]string{"app": "web"}}, Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: fmt.Sprintf("127.0.0.%d", i+2)}}
		if _, err := client.CoreV1().Pods("ns").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f := &probeFixture{client: client, events: record.NewFakeRecorder(100), set: set, loop: &probeLoop{failures: map[types.UID]int32{}}}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	f.p = &roleProber{client: client, recorder: f.events, now: func() time.Time { return now }, limits: newProbeLimits(RoleProbeOptions{}),
		net: &hookNet{policy: &hookPolicy{allow: allow}, lookup: net.DefaultResolver.LookupNetIP},
		set: func(string) (*v1alpha1.StatefulSet, bool) { return f.set, true },
		pods: func(types.UID) []Pod {
			list, err := client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var out []Pod
			for _, p := range list.Items {
				out = append(out, Pod{UID: p.UID, Namespace: p.Namespace, Name: p.Name, Phase: p.Status.Phase, IP: p.Status.PodIP,
					Labels: p.Labels, Annotations: p.Annotations})
			}
			return out
		}}
	return f
}

// round runs one round and returns each pod's role label ("-" for none)
// and role-probe annotation.
func (f *probeFixture) round(t *testing.T) (roles, notes map[string]string) {
	t.Helper()
	f.p.round(context.Background(), f.set, f.loop)
	roles, notes = map[string]string{}, map[string]string{}
	list, err := f.client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Items {
		v, ok := p.Labels["role"]
		if !ok {
			v = "-"
		}
		roles[p.Name] = v
		notes[p.Name] = p.Annotations[v1alpha1.RoleProbeAnnotation]
	}
	return roles, notes
}

func (f *probeFixture) drainEvents() []string {
	var out []string
	for {
		select {
		case e := <-f.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// Each pod's answer becomes its role label: set, changed, removed on an
// empty answer; a round with nothing new writes nothing.
func TestTheRoleProbeWritesEachPodsAnswerToItsLabel(t *testing.T) {
	apps := startRoleApps(t)
	f := newProbeFixture(t, apps.port, loopback)
	apps.answer("127.0.0.2", "200 leader\n")
	apps.answer("127.0.0.3", "200 follower")
	apps.answer("127.0.0.4", "200 ")
	roles, _ := f.round(t)
	if want := map[string]string{"web-0": "leader", "web-1": "follower", "web-2": "-"}; fmt.Sprint(roles) != fmt.Sprint(want) {
		t.Fatalf("roles %v, want %v", roles, want)
	}
	if ev := f.drainEvents(); len(ev) != 2 || !strings.Contains(ev[0]+ev[1], "Pod web-0 answers role leader (was none)") {
		t.Errorf("events %q, want two RoleChanged", ev)
	}

	apps.answer("127.0.0.2", "200 follower")
	apps.answer("127.0.0.3", "200 leader")
	apps.answer("127.0.0.4", "200 ")
	roles, _ = f.round(t)
	if want := map[string]string{"web-0": "follower", "web-1": "leader", "web-2": "-"}; fmt.Sprint(roles) != fmt.Sprint(want) {
		t.Fatalf("after a switchover: roles %v, want %v", roles, want)
	}
	f.drainEvents()

	writes := len(f.client.Actions())
	f.round(t)
	patches := 0
	for _, a := range f.client.Actions()[writes:] {
		if a.GetVerb() == "patch" {
			patches++
		}
	}
	if patches != 0 {
		t.Errorf("a round with the same answers wrote %d patches", patches)
	}

	apps.answer("127.0.0.2", "200 ")
	roles, _ = f.round(t)
	if roles["web-0"] != "-" {
		t.Errorf("web-0 answered no role but is labelled %q", roles["web-0"])
	}
	for _, a := range f.client.Actions() {
		if p, ok := a.(interface{ GetPatch() []byte }); ok && !strings.Contains(string(p.GetPatch()), `"uid":"pod-`) {
			t.Errorf("patch %s names no pod UID", p.GetPatch())
		}
	}
}

// A failing probe clears nothing for failureThreshold-1 rounds: the
// annotation records the run's start and reason at the first failure, the
// label goes at the threshold with a Warning, and the next answer puts it
// back and removes the annotation. Answers that are not label values, codes
// other than 200 and timeouts are failures alike.
func TestAFailingRoleProbeClearsTheLabelOnlyAtTheThreshold(t *testing.T) {
	apps := startRoleApps(t)
	f := newProbeFixture(t, apps.port, loopback)
	apps.answer("127.0.0.2", "200 leader")
	apps.answer("127.0.0.3", "200 follower")
	apps.answer("127.0.0.4", "200 follower")
	f.round(t)
	f.drainEvents()

	apps.answer("127.0.0.2", "503 ")
	apps.answer("127.0.0.3", "200 not a label value!")
	apps.answer("127.0.0.4", "hang")
	for round := 1; round <= 2; round++ {
		roles, notes := f.round(t)
		if want := map[string]string{"web-0": "leader", "web-1": "follower", "web-2": "follower"}; fmt.Sprint(roles) != fmt.Sprint(want) {
			t.Fatalf("failed round %d of 3: roles %v, want them kept %v", round, roles, want)
		}
		var run v1alpha1.RoleProbeFailure
		if err := json.Unmarshal([]byte(notes["web-0"]), &run); err != nil || run.Reason != "HTTP 503" || run.Since != "2026-11-26T12:00:00Z" || run.Cleared {
			t.Errorf("failed round %d: web-0's annotation %q", round, notes["web-0"])
		}
		if !strings.Contains(notes["web-1"], `"reason":"answer is not a label value"`) || !strings.Contains(notes["web-2"], `"reason":"no answer within 1s"`) {
			t.Errorf("failed round %d: annotations %q, %q", round, notes["web-1"], notes["web-2"])
		}
	}
	if ev := f.drainEvents(); len(ev) != 0 {
		t.Errorf("events before the threshold: %q", ev)
	}
	roles, notes := f.round(t)
	if want := map[string]string{"web-0": "-", "web-1": "-", "web-2": "-"}; fmt.Sprint(roles) != fmt.Sprint(want) {
		t.Fatalf("at the threshold: roles %v, want %v", roles, want)
	}
	if !strings.Contains(notes["web-0"], `"cleared":true`) {
		t.Errorf("web-0's annotation at the threshold: %q", notes["web-0"])
	}
	ev := f.drainEvents()
	if len(ev) != 3 || !strings.Contains(strings.Join(ev, "\n"), "Warning RoleProbeFailed Pod web-0: role probe failed 3 times in a row (HTTP 503); label role=leader removed") {
		t.Errorf("events at the threshold: %q", ev)
	}

	apps.answer("127.0.0.2", "200 leader")
	roles, notes = f.round(t)
	if roles["web-0"] != "leader" || notes["web-0"] != "" {
		t.Errorf("after a good answer: web-0 labelled %q, annotation %q", roles["web-0"], notes["web-0"])
	}
}

// The probe follows the hook address policy: a pod address the policy
// refuses is never called, and counts as a failure.
func TestTheRoleProbeCallsNoAddressThePolicyRefuses(t *testing.T) {
	apps := startRoleApps(t)
	f := newProbeFixture(t, apps.port, nil)
	apps.answer("127.0.0.2", "200 leader")
	_, notes := f.round(t)
	if !strings.Contains(notes["web-0"], `"reason":"address 127.0.0.2 not allowed (loopback)"`) {
		t.Errorf("web-0's annotation %q, want the loopback address refused", notes["web-0"])
	}
	apps.mu.Lock()
	defer apps.mu.Unlock()
	if len(apps.calls) != 0 {
		t.Errorf("calls reached the pods: %v", apps.calls)
	}
}

// A set's loop starts once, runs rounds every period, and ends when the set
// no longer asks for probes; asked again, a new loop starts.
func TestTheRoleProbeLoopEndsWithTheProbe(t *testing.T) {
	apps := startRoleApps(t)
	f := newProbeFixture(t, apps.port, loopback)
	apps.answer("127.0.0.2", "200 leader")
	var mu sync.Mutex
	set := f.set
	f.p.set = func(string) (*v1alpha1.StatefulSet, bool) {
		mu.Lock()
		defer mu.Unlock()
		return set, true
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.p.ensure(ctx, "ns/web", f.set)
	f.p.ensure(ctx, "ns/web", f.set)
	deadline := time.Now().Add(10 * time.Second)
	for {
		apps.mu.Lock()
		calls := apps.calls["127.0.0.2"]
		apps.mu.Unlock()
		if calls >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls of web-0 in 10 s with a 1 s period", calls)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	set = set.DeepCopy()
	set.Spec.Roles.RoleProbe = nil
	mu.Unlock()
	for f.p.running("ns/web") {
		if time.Now().After(deadline.Add(5 * time.Second)) {
			t.Fatal("the loop runs on without a probe")
		}
		time.Sleep(50 * time.Millisecond)
	}
	apps.mu.Lock()
	ended := apps.calls["127.0.0.2"]
	apps.mu.Unlock()
	time.Sleep(1500 * time.Millisecond)
	apps.mu.Lock()
	after := apps.calls["127.0.0.2"]
	apps.mu.Unlock()
	if after != ended {
		t.Errorf("%d calls after the loop ended", after-ended)
	}
	mu.Lock()
	set = f.set
	mu.Unlock()
	f.p.ensure(ctx, "ns/web", f.set)
	if !f.p.running("ns/web") {
		t.Error("no loop after the probe came back")
	}
	cancel()
}

// A probe of a simulated pod goes to the simulated pods' socket, with the
// pod's address in its Host, after the policy judged that address; a
// socket that is not there is a failure that says so.
func TestTheRoleProbeOfASimulatedPodGoesToTheSocket(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "sim.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	var mu sync.Mutex
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		fmt.Fprint(w, "leader")
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })

	f := newProbeFixture(t, 8080, nil)
	f.p.net.simulated = &SimulatedPods{Prefix: netip.MustParsePrefix("127.0.0.0/8"), Socket: socket}
	_, notes := f.round(t)
	if !strings.Contains(notes["web-0"], "not allowed (loopback)") {
		t.Errorf("a simulated address the policy refuses: annotation %q", notes["web-0"])
	}
	f.p.net.policy = &hookPolicy{allow: loopback}
	roles, _ := f.round(t)
	mu.Lock()
	got := strings.Join(hosts, " ")
	mu.Unlock()
	if roles["web-0"] != "leader" || !strings.Contains(got, "127.0.0.2:8080") {
		t.Errorf("roles %v, hosts asked %q", roles, got)
	}
	f.p.net.simulated.Socket = filepath.Join(t.TempDir(), "none.sock")
	_, notes = f.round(t)
	if !strings.Contains(notes["web-0"], "simulated pods' socket "+f.p.net.simulated.Socket+" not reachable") {
		t.Errorf("a missing socket: annotation %q", notes["web-0"])
	}
}

// patchesAndEvents counts the prober's pod patches since action n of the
// fake client, and the events recorded since the last drain.
func (f *probeFixture) patchesAndEvents(n int) int {
	writes := len(f.drainEvents())
	for _, a := range f.client.Actions()[n:] {
		if a.GetVerb() == "patch" {
			writes++
		}
	}
	return writes
}

// A set whose pods change their answer every round writes no more than the
// probe's own token bucket allows, events included, whatever the client's
// limit: a round that finds no token leaves its writes to the next one.
func TestAFlappingRoleProbeWritesNoMoreThanItsBucket(t *testing.T) {
	apps := startRoleApps(t)
	f := newProbeFixture(t, apps.port, loopback)
	f.p.limits = newProbeLimits(RoleProbeOptions{WriteQPS: 0.001, WriteBurst: 4})
	start := len(f.client.Actions())
	for round := range 6 {
		roles := []string{"leader", "follower"}
		apps.answer("127.0.0.2", "200 "+roles[round%2])
		apps.answer("127.0.0.3", "200 "+roles[(round+1)%2])
		apps.answer("127.0.0.4", "200 "+roles[round%2])
		f.round(t)
	}
	if writes := f.patchesAndEvents(start); writes == 0 || writes > 4 {
		t.Errorf("six rounds of three flapping pods wrote %d patches and events, want 1 to 4 (the bucket's burst)", writes)
	}
}

// Calls in flight stay within the bound shared by every set, however many
// pods a set has. The pods hold their answers until the test lets them
// go, one at a time, and the probe's timeout is long: no call is given up
// on while others are asked, so the pods count what the prober has in
// flight. (A call the prober gives up on is still counted by its pod
// until the pod notices the closed connection, which on a busy machine
// comes after the next call.)
func TestRoleProbeCallsStayWithinTheSharedBound(t *testing.T) {
	apps := startRoleApps(t)
	f := newProbeFixture(t, apps.port, loopback)
	f.set.Spec.Roles.RoleProbe.TimeoutSeconds = 60
	f.p.limits = newProbeLimits(RoleProbeOptions{Calls: 2})
	for _, addr := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"} {
		apps.answer(addr, "hold")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.p.round(context.Background(), f.set, f.loop)
	}()
	calls := func() (inFlight, total int) {
		apps.mu.Lock()
		defer apps.mu.Unlock()
		return apps.inFlight, apps.calls["127.0.0.2"] + apps.calls["127.0.0.3"] + apps.calls["127.0.0.4"]
	}
	waitFor(t, "two calls in flight", func() bool { n, _ := calls(); return n == 2 })
	// Were the bound not kept, the third call would come now: give it a
	// second before any answer frees a slot.
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, total := calls(); total > 2 {
			break
		}
	}
	for range 3 {
		select {
		case apps.hold <- struct{}{}:
		case <-time.After(wait.ForeverTestTimeout):
			t.Fatal("the prober asked fewer than three pods")
		}
	}
	<-done
	apps.mu.Lock()
	defer apps.mu.Unlock()
	if apps.maxInFlight != 2 {
		t.Errorf("%d calls in flight at once, want 2 (the bound)", apps.maxInFlight)
	}
}

// Only an HTTP 200 is an answer: another 2xx is a failed probe, which
// keeps the label (below the threshold) and says why.
func TestOnlyA200IsARoleAnswer(t *testing.T) {
	apps := startRoleApps(t)
	f := newProbeFixture(t, apps.port, loopback)
	apps.answer("127.0.0.2", "200 leader")
	apps.answer("127.0.0.3", "200 follower")
	apps.answer("127.0.0.4", "200 follower")
	f.round(t)
	apps.answer("127.0.0.2", "204 ")
	apps.answer("127.0.0.3", "201 leader")
	roles, notes := f.round(t)
	if roles["web-0"] != "leader" || roles["web-1"] != "follower" {
		t.Errorf("after 204 and 201: roles %v, want web-0 leader and web-1 follower kept", roles)
	}
	for pod, code := range map[string]string{"web-0": "204", "web-1": "201"} {
		if want := `"reason":"HTTP ` + code + `: only 200 is an answer"`; !strings.Contains(notes[pod], want) {
			t.Errorf("%s's annotation %q, want it to say %s", pod, notes[pod], want)
		}
	}
}

// A role spec.roles.values does not list is not written: the probe fails,
// and says why.
func TestAnUnlistedRoleIsNotWritten(t *testing.T) {
	apps := startRoleApps(t)
	f := newProbeFixture(t, apps.port, loopback)
	apps.answer("127.0.0.2", "200 candidate")
	apps.answer("127.0.0.3", "200 leader")
	apps.answer("127.0.0.4", "200 ")
	roles, notes := f.round(t)
	if roles["web-0"] != "-" || roles["web-1"] != "leader" {
		t.Errorf("roles %v, want web-0 unlabelled and web-1 leader", roles)
	}
	if want := `"reason":"answer \"candidate\" is not one of spec.roles.values (leader, follower)"`; !strings.Contains(notes["web-0"], want) {
		t.Errorf("web-0's annotation %q, want it to say %s", notes["web-0"], want)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
