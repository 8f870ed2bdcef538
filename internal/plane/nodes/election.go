package nodes

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Annotations of the simulated leader election: a pod annotated
// AnnotationRole=RoleElect takes part in an election with the other pods
// of its controller (its set) so annotated. The simulated nodes keep
// exactly one of the Ready ones labelled <key>=leader, where key is
// AnnotationRoleLabel's value ("role" without it), and the other Ready
// ones <key>=follower; they move leadership when the leader is no longer
// Ready or is going away, and answer a switchover handshake: a leader
// labelled apps.ordinal.dev/switchover=Pending hands leadership to another
// Ready pod (labelled leader first, so there is no moment without one)
// and is then labelled follower and Done.
//
// A pod annotated AnnotationRole=RoleAnswer takes part in the same
// election, but the application keeps its role to itself: the simulated
// nodes write it to the pod's AnnotationRoleAnswer annotation, not to a
// label, and answer it to a role probe (probes.go), so that the
// controller's role probe writes the label.
const (
	AnnotationRole      = "sim.ordinal.dev/role"
	AnnotationRoleLabel = "sim.ordinal.dev/role-label"
	RoleElect           = "elect"
	RoleAnswer          = "answer"
	RoleLeader          = "leader"
	RoleFollower        = "follower"
	defaultRoleLabel    = "role"
)

// election is the part of the simulated nodes that plays an application's
// leader election for pods that ask for one.
type election struct {
	client  kubernetes.Interface
	pods    corelisters.PodLister
	indexer cache.Indexer
	synced  cache.InformerSynced
	factory informers.SharedInformerFactory
	queue   workqueue.TypedRateLimitingInterface[string]
}

// newElection wires an informer on the pods that take part.
func newElection(client kubernetes.Interface) (*election, error) {
	el := &election{
		client: client, factory: informers.NewSharedInformerFactory(client, 0),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "simulated-election"}),
	}
	inf := el.factory.Core().V1().Pods()
	el.pods = inf.Lister()
	if err := inf.Informer().AddIndexers(cache.Indexers{podIPIndex: indexPodIP}); err != nil {
		return nil, fmt.Errorf("simulated election: adding the address index: %w", err)
	}
	el.indexer = inf.Informer().GetIndexer()
	reg, err := inf.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: electing,
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    el.enqueue,
			UpdateFunc: func(_, obj any) { el.enqueue(obj) },
			DeleteFunc: el.enqueue,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("simulated election: adding event handler: %w", err)
	}
	el.synced = reg.HasSynced
	return el, nil
}

// electing reports whether obj is a pod (or the tombstone of one) that
// takes part in an election.
func electing(obj any) bool {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok || metav1.GetControllerOf(pod) == nil {
		return false
	}
	mode := pod.Annotations[AnnotationRole]
	return mode == RoleElect || mode == RoleAnswer
}

// enqueue queues the pod's election: namespace/controller UID.
func (el *election) enqueue(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if pod, ok := obj.(*corev1.Pod); ok {
		if ref := metav1.GetControllerOf(pod); ref != nil {
			el.queue.Add(pod.Namespace + "/" + string(ref.UID))
		}
	}
}

// run holds elections until ctx ends, with one worker (elections are
// cheap).
func (el *election) run(ctx context.Context) {
	loop := queueLoop{what: "Simulated election", factory: el.factory, synced: el.synced, queue: el.queue, workers: 1,
		sync: func(ctx context.Context, key string) (time.Duration, error) { return 0, el.sync(ctx, key) }}
	loop.run(ctx)
}

// sync holds one election: it reads the pods, plans the relabelling
// (planElection) and writes it in order, each write preconditioned on
// the pod's UID.
func (el *election) sync(ctx context.Context, key string) error {
	ns, uid, _ := strings.Cut(key, "/")
	all, err := el.pods.Pods(ns).List(labels.Everything())
	if err != nil {
		return err
	}
	var pods []*corev1.Pod
	for _, p := range all {
		if ref := metav1.GetControllerOf(p); ref != nil && string(ref.UID) == uid && electing(p) {
			pods = append(pods, p)
		}
	}
	for _, w := range planElection(pods) {
		meta := map[string]any{"uid": w.pod.UID}
		if len(w.labels) > 0 {
			meta["labels"] = w.labels
		}
		if len(w.annotations) > 0 {
			meta["annotations"] = w.annotations
		}
		patch, _ := json.Marshal(map[string]any{"metadata": meta})
		_, err := el.client.CoreV1().Pods(ns).Patch(ctx, w.pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("labelling pod %s/%s: %w", ns, w.pod.Name, err)
		}
	}
	return nil
}

// relabel is one write of an election: labels and annotations to set on
// a pod.
type relabel struct {
	pod         *corev1.Pod
	labels      map[string]string
	annotations map[string]string
}

// roles is where one election keeps each pod's role: the role label, or
// under RoleAnswer the AnnotationRoleAnswer annotation.
type roles struct {
	key    string
	answer bool
}

func (r roles) of(p *corev1.Pod) string {
	if r.answer {
		return p.Annotations[AnnotationRoleAnswer]
	}
	return p.Labels[r.key]
}

// write is the write that gives p role, with the extra labels.
func (r roles) write(p *corev1.Pod, role string, labels map[string]string) relabel {
	w := relabel{pod: p, labels: labels}
	if r.answer {
		w.annotations = map[string]string{AnnotationRoleAnswer: role}
		return w
	}
	if w.labels == nil {
		w.labels = map[string]string{}
	}
	w.labels[r.key] = role
	return w
}

// planElection decides the relabelling of one set's electing pods, in
// the order it must be written:
//  1. a leader asked to switch over (its switchover label Pending) hands
//     over to the lowest-ordinal other Ready pod: that pod is labelled
//     leader first, then the old leader follower and its switchover Done;
//     with no other Ready pod the request waits;
//  2. otherwise, with no Ready leader that stays (not going away), the
//     lowest-ordinal Ready pod becomes leader;
//  3. every other Ready pod, and a leader that is not Ready or is going
//     away, is labelled follower; two Ready leaders keep only one.
func planElection(pods []*corev1.Pod) []relabel {
	if len(pods) == 0 {
		return nil
	}
	rs := roles{key: cmp.Or(pods[0].Annotations[AnnotationRoleLabel], defaultRoleLabel), answer: pods[0].Annotations[AnnotationRole] == RoleAnswer}
	slices.SortFunc(pods, func(a, b *corev1.Pod) int { return cmp.Compare(ordinalOf(a.Name), ordinalOf(b.Name)) })
	var ready []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil && podReady(p) {
			ready = append(ready, p)
		}
	}
	leader := pickLeader(ready, rs)
	var out []relabel
	if leader != nil && leader.Labels[v1alpha1.SwitchoverHookLabel] == v1alpha1.HookPending {
		if next := firstOther(ready, leader); next != nil {
			out = append(out, rs.write(next, RoleLeader, nil))
			out = append(out, rs.write(leader, RoleFollower, map[string]string{v1alpha1.SwitchoverHookLabel: v1alpha1.HookDone}))
			leader = next
		}
	}
	if leader == nil && len(ready) > 0 {
		leader = ready[0]
		out = append(out, rs.write(leader, RoleLeader, nil))
	}
	for _, p := range pods {
		if p == leader || rs.of(p) == RoleFollower || slices.ContainsFunc(out, func(r relabel) bool { return r.pod == p }) {
			continue
		}
		if (rs.of(p) == RoleLeader && p.DeletionTimestamp == nil) || slices.Contains(ready, p) {
			out = append(out, rs.write(p, RoleFollower, nil))
		}
	}
	return out
}

// pickLeader is the Ready pod labelled leader that stays leader: among
// several, one without a switchover under way, else the lowest ordinal.
func pickLeader(ready []*corev1.Pod, rs roles) *corev1.Pod {
	var leaders []*corev1.Pod
	for _, p := range ready {
		if rs.of(p) == RoleLeader {
			leaders = append(leaders, p)
		}
	}
	for _, p := range leaders {
		if _, switching := p.Labels[v1alpha1.SwitchoverHookLabel]; !switching {
			return p
		}
	}
	if len(leaders) > 0 {
		return leaders[0]
	}
	return nil
}

// firstOther is the first pod of ready that is not leader.
func firstOther(ready []*corev1.Pod, leader *corev1.Pod) *corev1.Pod {
	for _, p := range ready {
		if p != leader {
			return p
		}
	}
	return nil
}

// podReady reports a Running pod with Ready=True.
func podReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ordinalOf is the number after a pod name's last '-', -1 without one.
func ordinalOf(name string) int {
	i := strings.LastIndexByte(name, '-')
	n, err := strconv.Atoi(name[i+1:])
	if i < 0 || err != nil {
		return -1
	}
	return n
}
