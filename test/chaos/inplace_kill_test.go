package chaos

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// TestInPlaceUpdateSurvivesControllerKills kills the controller (SIGKILL)
// at the two moments an update in place is most exposed: right after a
// pod's readiness gate went False, and right after a pod's spec was
// changed, before its gate is True again. The set updates in place after
// a preUpdate http hook. The controller that comes back must finish the
// rollout with every pod kept (same UID), no invariant broken, and no pod
// left out of service.
func TestInPlaceUpdateSurvivesControllerKills(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r, err := newRun(ctx, t, 4242)
	if err != nil {
		t.Fatal(err)
	}
	defer r.cleanup()
	hookEndpoint.calm.Store(true)
	set := randomExtended(rand.New(rand.NewSource(1)), r.ns, "alpha", false)
	four, two := int32(4), intstr.FromInt32(2)
	set.Spec.Replicas = &four
	set.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &v1alpha1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &two, SelfHealing: v1alpha1.SelfHealingEnabled,
			OnFailure: v1alpha1.FailureReport, PodUpdatePolicy: v1alpha1.PodUpdateInPlaceIfPossible,
			InPlace: &v1alpha1.InPlaceUpdate{GracePeriodSeconds: 2, ResizeTimeoutSeconds: 120}}}
	set.Spec.Lifecycle = &v1alpha1.Lifecycle{PreUpdate: &v1alpha1.LifecycleHook{HTTP: &v1alpha1.HTTPHook{URL: hookURL()}, TimeoutSeconds: 120, FailurePolicy: v1alpha1.HookHalt}}
	created, err := r.ext.StatefulSets(r.ns).Create(ctx, set, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.watcher.UserWrite(created)
	cs := &chaosSet{name: "alpha", extended: true, templates: []template{templateOf(&set.Spec.Template)}}
	r.sets = append(r.sets, cs)
	rep := startReplica(r.dir, "first", r.ns, 0, 0)
	r.replicas = append(r.replicas, rep)
	if ok, why := r.converge(ctx); !ok {
		t.Fatalf("initial rollout: %s", why)
	}
	before := r.podUIDs(ctx)

	if err := r.mutate(ctx, cs, func(f specFields) { f.template.Spec.Containers[0].Image = image(9) }); err != nil {
		t.Fatal(err)
	}
	r.killWhen(ctx, "a pod's gate False", func(p *corev1.Pod) bool { return gateStatus(p) == corev1.ConditionFalse }, rep)
	r.killWhen(ctx, "a pod changed in place, its gate not yet True", func(p *corev1.Pod) bool {
		return p.Spec.Containers[0].Image == image(9) && gateStatus(p) == corev1.ConditionFalse
	}, rep)
	r.stopped = time.Now()
	ok, why := r.converge(ctx)
	r.watcher.Stop()
	violations := r.watcher.Violations()
	if ok {
		violations = append(violations, r.finalChecks(ctx)...)
	}
	for _, v := range violations {
		t.Errorf("violation: %s", v)
	}
	if !ok {
		t.Errorf("did not converge: %s", why)
	}
	if after := r.podUIDs(ctx); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("pods %v after the rollout, want the same as before %v: every change was possible in place", after, before)
	}
	for _, line := range r.log {
		t.Log(line)
	}
	if !ok || len(violations) > 0 {
		r.failed = true
		r.saveHistory()
		t.Logf("history and controller logs kept in %s", r.dir)
	}
}

func gateStatus(p *corev1.Pod) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == v1alpha1.InPlaceReadinessGate {
			return c.Status
		}
	}
	return ""
}

// podUIDs maps the run's pods to their UIDs.
func (r *run) podUIDs(ctx context.Context) map[string]types.UID {
	out := map[string]types.UID{}
	pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	for _, p := range pods.Items {
		out[p.Name] = p.UID
	}
	return out
}

// killWhen SIGKILLs the replica (its supervisor starts it again) as soon as
// some pod of the run passes when.
func (r *run) killWhen(ctx context.Context, what string, when func(*corev1.Pod) bool, rep *replica) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
		if err == nil {
			for i := range pods.Items {
				if when(&pods.Items[i]) {
					r.logf("SIGKILL the controller: %s (%s)", what, pods.Items[i].Name)
					rep.kill()
					return
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.t.Fatalf("never saw %s", what)
}
