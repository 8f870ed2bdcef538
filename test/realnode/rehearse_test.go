package realnode

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/forecast"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/learn"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// rehearsalRounds is how many times TestARehearsalForecastsTheRealRollout
// rehearses a change and then makes it; docs/rehearse.md's figures come
// from more rounds than the test command runs.
var rehearsalRounds = flag.Int("rehearsal-rounds", 1, "rounds of rehearsal and real rollout in TestARehearsalForecastsTheRealRollout")

// forecastTolerance is how far a forecast's duration may be from the real
// rollout's, once the forecast is told how much faster or slower the real
// pods started and stopped than the ones it learned from: the larger of a
// fraction of the real rollout and a number of seconds (docs/rehearse.md
// says how it was measured).
const (
	forecastToleranceFraction = 0.25
	forecastToleranceSeconds  = 3.0
)

// A rehearsal's forecast against the real rollout it foresaw: a set of
// real pods (examples/real-web.yaml on the real node, under the chart's
// controller, its pods slower to start and stop) after one rollout is
// rehearsed from a second plane, as a user who may only read; then the
// same change is made on the set, and the real rollout takes as long as
// the forecast said, within the tolerance. The rehearsal leaves the
// source as it was.
//
// A forecast is learned from the pods of the last rollout; the real pods
// of the next one may start and stop faster or slower (the machine's
// other work, a kubelet's whole-second timestamps), and no rehearsal can
// know that beforehand. So the real rollout's own pods are learned too,
// by the same code, once it is done, and the forecast is judged with the
// difference added: this rollout is one pod after another, so the
// difference of the summed start-ups and shutdowns is what it changes the
// total by. What is left is the rehearsal's own error — the copy's
// scheduling, controller and ordering — and that must be within the
// tolerance.
func TestARehearsalForecastsTheRealRollout(t *testing.T) {
	node(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(*rehearsalRounds)*6*time.Minute+4*time.Minute)
	defer cancel()
	_, ns := namespace(t)
	svc, sts := readExample(t)
	// Members that take seconds to start and to stop, as a database's do:
	// Ready three seconds after the container starts, and three seconds
	// from SIGTERM to exit.
	app := &sts.Spec.Template.Spec.Containers[0]
	app.Args = append(app.Args, "--stop-delay=3s")
	app.ReadinessProbe.InitialDelaySeconds = 3
	if _, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitSetReady(ctx, t, ns, sts.Name, 3, "")
	// A first rollout leaves its events, from which the rehearsal learns
	// how long a real pod takes to stop.
	realRollout(ctx, t, ns, sts.Name, "0")
	kc := readOnlyKubeconfig(t, ns)
	var pairs []string
	for round := 1; round <= *rehearsalRounds; round++ {
		value := fmt.Sprint(round)
		before := sourceState(ctx, t, ns, sts.Name)
		f := rehearseReal(ctx, t, "--kubeconfig", kc, sts.Name, "--controllers", "ordinal",
			"--set", "spec.template.metadata.annotations.rehearsal="+value, "--output-dir", "")
		if after := sourceState(ctx, t, ns, sts.Name); after != before || f.Source.Writes != 0 {
			t.Fatalf("the rehearsal changed its source (%s, was %s) or wrote to it (%d writes)", after, before, f.Source.Writes)
		}
		checkRealLearned(t, f.Learned)
		run := f.Runs[0]
		if run.Outcome != forecast.Completed {
			t.Fatalf("the forecast is %s, want completed: %s", run.Outcome, f.Verdict)
		}
		took := realRollout(ctx, t, ns, sts.Name, value)
		real := learnSource(ctx, t, ns, sts)
		checkRealLearned(t, real)
		drift := (podSeconds(real) - podSeconds(f.Learned)).Seconds()
		judged := run.Seconds.D().Seconds() + drift
		pairs = append(pairs, fmt.Sprintf("forecast %s, real %.1fs, pods %+.1fs", run.Seconds, took.Seconds(), drift))
		t.Logf("round %d: forecast %s, real %.1fs; the real pods took %+.1fs against those learned, so the forecast stands for %.1fs (%+.1fs off)",
			round, run.Seconds, took.Seconds(), drift, judged, judged-took.Seconds())
		off := math.Abs(judged - took.Seconds())
		if tol := math.Max(forecastToleranceFraction*took.Seconds(), forecastToleranceSeconds); off > tol {
			t.Errorf("round %d: the forecast said %s, the real rollout took %.1fs with pods %+.1fs from those learned: %.1fs off, more than %.1fs",
				round, run.Seconds, took.Seconds(), drift, off, tol)
		}
	}
	t.Logf("rounds: %s", strings.Join(pairs, "; "))
}

// checkRealLearned wants the real pods' times learned from their own
// trace: their conditions and the first rollout's events.
func checkRealLearned(t *testing.T, l learn.Timings) {
	t.Helper()
	for _, p := range l.Pods {
		if p.StartUpFrom != learn.FromConditions || p.ShutdownFrom != learn.FromEvents {
			t.Errorf("learned %+v, want a start-up from its conditions and a shutdown from the events", p)
		}
	}
	t.Logf("learned: %+v", l.Pods)
}

// learnSource learns the set's pods' timings from the source as the
// rehearsal does, from their conditions and the namespace's events.
func learnSource(ctx context.Context, t *testing.T, ns string, sts *appsv1.StatefulSet) learn.Timings {
	t.Helper()
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	events, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := learn.Input{Set: sts.Name, Template: sts.Spec.Template}
	for i := range pods.Items {
		in.Pods = append(in.Pods, &pods.Items[i])
	}
	for i := range events.Items {
		in.Events = append(in.Events, &events.Items[i])
	}
	return learn.Learn(in)
}

// podSeconds is the sum of the pods' learned start-ups and shutdowns.
func podSeconds(l learn.Timings) time.Duration {
	var sum time.Duration
	for _, p := range l.Pods {
		sum += p.StartUp.D() + p.Shutdown.D()
	}
	return sum
}

// sourceState is what a rehearsal must not change: the set's spec
// (generation), labels and annotations, and its pods (UIDs). The status
// is the source's controller's to write meanwhile.
func sourceState(ctx context.Context, t *testing.T, ns, name string) string {
	t.Helper()
	s, err := client.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := fmt.Sprintf("set generation %d labels %v annotations %v", s.Generation, s.Labels, s.Annotations)
	for _, p := range pods.Items {
		out += " " + p.Name + "=" + string(p.UID)
	}
	return out
}

// realRollout sets the template's rehearsal annotation to value and
// returns how long until every pod runs the new revision, Ready, with no
// other pod left: what a forecast's completed time measures.
func realRollout(ctx context.Context, t *testing.T, ns, name, value string) time.Duration {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"rehearsal":%q}}}}}`, value)
	began := time.Now()
	s, err := client.AppsV1().StatefulSets(ns).Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var took time.Duration
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 4*time.Minute, true, func(ctx context.Context) (bool, error) {
		cur, err := client.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil || cur.Status.ObservedGeneration < s.Generation || cur.Status.UpdateRevision == "" {
			return false, nil
		}
		pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		took = time.Since(began)
		return settledAt(pods.Items, cur.Status.UpdateRevision, int(*cur.Spec.Replicas)), nil
	})
	if err != nil {
		t.Fatalf("the real rollout to rehearsal=%s did not complete: %v", value, err)
	}
	// The next round starts from rest: the controller's status caught up.
	waitSetStatus(ctx, t, ns, name, func(st appsv1.StatefulSetStatus) bool {
		return st.ObservedGeneration >= s.Generation && st.CurrentRevision == st.UpdateRevision && st.ReadyReplicas == *s.Spec.Replicas
	})
	return took
}

func settledAt(pods []corev1.Pod, rev string, replicas int) bool {
	if len(pods) != replicas {
		return false
	}
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil || p.Labels[appsv1.ControllerRevisionHashLabelKey] != rev || !ready(p) {
			return false
		}
	}
	return true
}

// readOnlyKubeconfig is the plane's kubeconfig acting as a user whom RBAC
// lets only get, list and watch.
func readOnlyKubeconfig(t *testing.T, ns string) string {
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
	cfg, err := clientcmd.LoadFromFile(shared.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = user
	}
	for _, c := range cfg.Contexts {
		c.Namespace = ns
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// rehearseReal runs this binary as `ordinal rehearse` and reads its JSON
// forecast.
func rehearseReal(ctx context.Context, t *testing.T, args ...string) forecast.Forecast {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"rehearse", "-o", "json"}, args...)...)
	cmd.Env = append(os.Environ(), planetest.ExecMainEnv+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	began := time.Now()
	err := cmd.Run()
	t.Logf("$ ordinal rehearse %s  (%s)\n%s", strings.Join(args, " "), time.Since(began).Round(time.Second), errOut.String())
	if err != nil {
		t.Fatalf("ordinal rehearse: %v", err)
	}
	var f forecast.Forecast
	if err := json.Unmarshal(out.Bytes(), &f); err != nil {
		t.Fatalf("reading the forecast: %v\n%s", err, out.String())
	}
	if len(f.Runs) != 1 {
		t.Fatalf("%d runs, want Ordinal's", len(f.Runs))
	}
	return f
}
