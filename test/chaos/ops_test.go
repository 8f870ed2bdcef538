package chaos

import (
	"context"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// op is one scenario step; fault ops count towards the run's faults.
type op struct {
	name   string
	weight int
	fault  bool
	do     func(r *run, ctx context.Context) bool // false: nothing to do
}

var ops = []op{
	{"scale", 4, false, (*run).scale},
	{"update", 3, false, (*run).update},
	{"resize", 2, false, (*run).resize},
	{"rollback", 2, false, (*run).rollback},
	{"partition", 2, false, (*run).partition},
	{"pause-resume", 1, false, (*run).pauseResume},
	{"break-template", 2, false, (*run).breakTemplate},
	{"fix-template", 1, false, (*run).fixTemplate},
	{"reserve", 2, false, (*run).reserve},
	{"offline", 2, false, (*run).offline},
	{"request-delete", 1, false, (*run).requestDelete},
	{"expand", 2, false, (*run).expand},
	{"edit-overrides", 2, false, (*run).editOverrides},
	{"crash-pod", 2, true, (*run).crashPod},
	{"delete-pod", 2, true, (*run).deletePod},
	{"relabel-primary", 3, false, (*run).relabelPrimary},
	{"answer-hook", 4, false, (*run).answerHook},
	{"kill-leader", 2, true, (*run).killLeader},
	{"break-probe", 2, true, (*run).breakProbe},
	{"kill-controller", 2, true, (*run).killController},
	{"restart-plane", 1, true, (*run).restartPlane},
	handOverOp,
}

// handOverOp hands the sets over to the other controller (handover_test.go).
var handOverOp = op{"hand-over", 2, true, (*run).handOver}

// chaos applies -ops random operations with short random pauses; the
// markers are written into new volumes between steps. One run in five
// (-node-loss) also removes a node once, -handovers steps are
// hand-overs whatever the mix picks, and in a run with an extended set one
// other step breaks its template.
func (r *run) chaos(ctx context.Context) {
	nodeLossAt, nodeFailAt := -1, -1
	if r.rng.Float64() < *flagNodeLoss {
		nodeLossAt = r.rng.Intn(*flagOps)
	}
	if r.rng.Float64() < *flagNodeFail {
		nodeFailAt = r.rng.Intn(*flagOps)
	}
	forced := r.handOverSteps(*flagHandOvers)
	breakAt := r.breakStep(forced)
	for i := 0; i < *flagOps; i++ {
		if i == nodeLossAt {
			r.removeNode(ctx)
		}
		if i == nodeFailAt {
			r.failNode(ctx)
		}
		r.shapesAt(ctx, i)
		r.configAt(ctx, i)
		o := r.pickOp()
		switch {
		case forced[i]:
			o = handOverOp
		case i == breakAt:
			o = breakExtendedOp
		}
		if o.do(r, ctx) && o.fault {
			r.faults++
		}
		pause := time.Duration(500+r.rng.Intn(2500)) * time.Millisecond
		time.Sleep(pause)
		_ = r.markers.Mark(ctx)
	}
}

// pickOp draws an op by weight.
func (r *run) pickOp() op {
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	pick := r.rng.Intn(total)
	for _, o := range ops {
		if pick -= o.weight; pick < 0 {
			return o
		}
	}
	return ops[len(ops)-1]
}

func (r *run) pickSet() *chaosSet { return r.sets[r.rng.Intn(len(r.sets))] }

func (r *run) scale(ctx context.Context) bool {
	cs, n := r.pickSet(), int32(r.rng.Intn(5))
	r.logf("scale %s to %d", cs.name, n)
	return r.mutate(ctx, cs, func(f specFields) { *f.replicas = &n }) == nil
}

// apply makes t the set's template, as the user's latest.
func (r *run) apply(ctx context.Context, cs *chaosSet, t template) bool {
	cs.templates = append(cs.templates, t)
	return r.mutate(ctx, cs, func(f specFields) { setTemplate(f.template, t) }) == nil
}

// update moves the set to the next image, keeping the behavior of the
// user's last template.
func (r *run) update(ctx context.Context) bool {
	cs := r.pickSet()
	t := cs.templates[len(cs.templates)-1]
	t.image++
	r.logf("update %s to %s", cs.name, t)
	return r.apply(ctx, cs, t)
}

// resize changes the cpu request of the set's container, keeping the rest
// of the user's last template: a set updating pods in place resizes them
// through the resize subresource, any other recreates them.
func (r *run) resize(ctx context.Context) bool {
	cs := r.pickSet()
	t := cs.templates[len(cs.templates)-1]
	choices := slices.DeleteFunc([]int{50, 100, 150, 200}, func(c int) bool { return c == t.cpu })
	t.cpu = choices[r.rng.Intn(len(choices))]
	r.logf("resize %s to %s", cs.name, t)
	return r.apply(ctx, cs, t)
}

// rollback goes back to the user's previous template, which reuses its
// revision; for the extended kind it is the user's rollback, setting the
// template back.
func (r *run) rollback(ctx context.Context) bool {
	cs := r.pickSet()
	if len(cs.templates) < 2 {
		return false
	}
	cs.templates = cs.templates[:len(cs.templates)-1]
	t := cs.templates[len(cs.templates)-1]
	r.logf("roll back %s to %s", cs.name, t)
	return r.mutate(ctx, cs, func(f specFields) { setTemplate(f.template, t) }) == nil
}

func (r *run) partition(ctx context.Context) bool {
	cs, p := r.pickSet(), int32(r.rng.Intn(4))
	if cs.recreate {
		return false
	}
	r.logf("partition %s at %d", cs.name, p)
	err := r.mutate(ctx, cs, func(f specFields) { *f.partition = &p })
	if err == nil {
		cs.paused = false // the user's new partition replaces the pause
	}
	return err == nil
}

// pausePartition is the partition the pause op raises an apps/v1 set to:
// above every ordinal a run's set has.
const pausePartition = 4

// pauseResume pauses or resumes a set's rollout: rollingUpdate.paused for
// the extended kind (Recreate has none), and for apps/v1, as `ordinal
// rollout pause` does, a partition above every ordinal, remembering the
// one it had, which resume restores.
func (r *run) pauseResume(ctx context.Context) bool {
	cs := r.pickSet()
	switch {
	case cs.recreate:
		return false
	case cs.extended:
		return r.mutate(ctx, cs, func(f specFields) {
			*f.paused = !*f.paused
			r.logf("%s %s", pauseWord(*f.paused), cs.name)
		}) == nil
	case cs.paused:
		return r.resumeApps(ctx, cs, "resume")
	}
	var before *int32
	err := r.mutate(ctx, cs, func(f specFields) {
		before = *f.partition
		*f.partition = ptr.To[int32](pausePartition)
	})
	if err == nil {
		cs.paused, cs.unpause = true, before
	}
	r.logf("pause %s (partition %d, was %s) (%s)", cs.name, pausePartition, partitionWord(before), errWord(err))
	return err == nil
}

// resumeApps restores the partition an apps/v1 set had before the pause
// op raised it; verb says why, for the scenario.
func (r *run) resumeApps(ctx context.Context, cs *chaosSet, verb string) bool {
	restore := cs.unpause
	err := r.mutate(ctx, cs, func(f specFields) { *f.partition = restore })
	if err == nil {
		cs.paused, cs.unpause = false, nil
	}
	r.logf("%s %s (partition %s restored) (%s)", verb, cs.name, partitionWord(restore), errWord(err))
	return err == nil
}

func partitionWord(p *int32) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(int(*p))
}

func pauseWord(paused bool) string {
	if paused {
		return "pause"
	}
	return "resume"
}

// setImage sets the image of the apps/v1 set name (for the deterministic
// tests).
func (r *run) setImage(ctx context.Context, name string, v int) bool {
	return r.mutateApps(ctx, name, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = image(v) }) == nil
}

func (r *run) randomPod(ctx context.Context) *corev1.Pod {
	pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) == 0 {
		return nil
	}
	p := pods.Items[r.rng.Intn(len(pods.Items))]
	if p.DeletionTimestamp != nil {
		return nil
	}
	return &p
}

// crashPod marks a pod Failed, as a kubelet does when its container exits
// for good (restartPolicy aside).
func (r *run) crashPod(ctx context.Context) bool {
	p := r.randomPod(ctx)
	if p == nil {
		return false
	}
	p.Status.Phase = corev1.PodFailed
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady || p.Status.Conditions[i].Type == corev1.ContainersReady {
			p.Status.Conditions[i].Status = corev1.ConditionFalse
		}
	}
	for i := range p.Status.ContainerStatuses {
		cs := &p.Status.ContainerStatuses[i]
		cs.Ready = false
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error"}}
	}
	_, err := r.client.CoreV1().Pods(r.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	r.logf("crash pod %s (%v)", p.Name, errWord(err))
	return err == nil
}

func (r *run) deletePod(ctx context.Context) bool {
	p := r.randomPod(ctx)
	if p == nil {
		return false
	}
	r.watcher.ExternalDelete(p.UID)
	err := r.client.CoreV1().Pods(r.ns).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}})
	r.logf("delete pod %s (%v)", p.Name, errWord(err))
	return err == nil || apierrors.IsNotFound(err)
}

// killController SIGKILLs the controller in charge: Ordinal's leader (or
// a random replica when none is known to lead), or the built-in
// controller; its supervisor restarts it, and with two replicas the other
// takes over through the Lease.
func (r *run) killController(_ context.Context) bool {
	procs := r.charge.procs
	victim := procs[r.rng.Intn(len(procs))]
	for _, rep := range procs {
		if rep.leads() {
			victim = rep
		}
	}
	r.logf("SIGKILL controller %s (leader: %t)", victim.name, victim.leads())
	victim.kill()
	return true
}

func errWord(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}
