package floor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// slot is what the floor knows of one ordinal.
type slot struct {
	pod         *corev1.Pod
	creating    bool // created by us, not yet in the cache
	terminating bool
	ready       bool
	current     bool // runs the set's image
}

func (s slot) missing() bool     { return s.pod == nil && !s.creating }
func (s slot) available() bool   { return s.pod != nil && !s.terminating && s.ready }
func (s slot) replaceable() bool { return s.pod != nil && !s.terminating && !s.current }

// plan is one sync's writes.
type plan struct {
	creates []int
	deletes []*corev1.Pod
}

func (fl *Floor) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	set, err := fl.sets.StatefulSets(ns).Get(name)
	if apierrors.IsNotFound(err) || (err == nil && set.DeletionTimestamp != nil) {
		return nil
	}
	if err != nil {
		return err
	}
	replicas := int(planner.Replicas(set))
	slots, err := fl.slots(set, replicas)
	if err != nil {
		return err
	}
	var p plan
	if set.Spec.PodManagementPolicy == appsv1.OrderedReadyPodManagement {
		p = planOrdered(slots, replicas)
	} else {
		p = planParallel(slots, replicas, maxUnavailable(set, replicas))
	}
	return fl.execute(ctx, set, p)
}

// slots maps ordinals 0..max(replicas, highest pod) to what is known.
func (fl *Floor) slots(set *appsv1.StatefulSet, replicas int) ([]slot, error) {
	sel, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("selector of %s: %w", set.Name, err)
	}
	pods, err := fl.pods.Pods(set.Namespace).List(sel)
	if err != nil {
		return nil, err
	}
	byOrd := map[int]*corev1.Pod{}
	top := replicas
	for _, pod := range pods {
		ref := metav1.GetControllerOf(pod)
		ord, ok := ordinal(set.Name, pod.Name)
		if ref == nil || ref.UID != set.UID || !ok {
			continue
		}
		byOrd[ord] = pod
		top = max(top, ord+1)
	}
	image := set.Spec.Template.Spec.Containers[0].Image
	out := make([]slot, top)
	for i := range out {
		pod := byOrd[i]
		creating, deleting := fl.exp.state(set.Namespace+"/"+podName(set, i), pod)
		s := slot{pod: pod, creating: creating}
		if pod != nil {
			s.terminating = pod.DeletionTimestamp != nil || deleting
			s.ready = podReady(pod)
			s.current = len(pod.Spec.Containers) > 0 && pod.Spec.Containers[0].Image == image
		}
		out[i] = s
	}
	return out, nil
}

// planParallel creates every missing replica, deletes every surplus one and
// replaces old pods, highest ordinal first, within maxUnavailable.
func planParallel(slots []slot, replicas, maxUnavail int) plan {
	var p plan
	unavailable := 0
	for i, s := range slots {
		if i >= replicas {
			if s.pod != nil && !s.terminating {
				p.deletes = append(p.deletes, s.pod)
			}
			continue
		}
		if s.missing() {
			p.creates = append(p.creates, i)
		}
		if !s.available() {
			unavailable++
		}
	}
	for i := min(replicas, len(slots)) - 1; i >= 0; i-- {
		s := slots[i]
		switch {
		case !s.replaceable():
		case !s.ready:
			p.deletes = append(p.deletes, s.pod)
		case unavailable < maxUnavail:
			p.deletes = append(p.deletes, s.pod)
			unavailable++
		}
	}
	return p
}

// planOrdered makes one move at a time: create the first missing replica
// once all before it are Ready; then remove the highest surplus replica;
// then replace the highest old pod.
func planOrdered(slots []slot, replicas int) plan {
	for i := 0; i < replicas; i++ {
		s := slots[i]
		switch {
		case s.missing():
			return plan{creates: []int{i}}
		case s.pod == nil || s.terminating || !s.ready:
			return plan{}
		}
	}
	for i := len(slots) - 1; i >= replicas; i-- {
		if s := slots[i]; s.pod != nil || s.creating {
			if s.terminating || s.creating {
				return plan{}
			}
			return plan{deletes: []*corev1.Pod{s.pod}}
		}
	}
	for i := replicas - 1; i >= 0; i-- {
		if slots[i].replaceable() {
			return plan{deletes: []*corev1.Pod{slots[i].pod}}
		}
	}
	return plan{}
}

// execute issues p's writes concurrently and joins their errors.
func (fl *Floor) execute(ctx context.Context, set *appsv1.StatefulSet, p plan) error {
	sem := make(chan struct{}, maxInFlight)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	run := func(f func() error) {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	for _, ord := range p.creates {
		run(func() error { return fl.create(ctx, set, ord) })
	}
	for _, pod := range p.deletes {
		run(func() error { return fl.delete(ctx, pod) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (fl *Floor) create(ctx context.Context, set *appsv1.StatefulSet, ord int) error {
	for _, tmpl := range set.Spec.VolumeClaimTemplates {
		claim := newClaim(set, tmpl, ord)
		if _, err := fl.claims.PersistentVolumeClaims(set.Namespace).Get(claim.Name); err == nil {
			continue
		}
		fl.Writes.Add(1)
		_, err := fl.client.CoreV1().PersistentVolumeClaims(set.Namespace).Create(ctx, claim, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating claim %s: %w", claim.Name, err)
		}
	}
	pod := newPod(set, ord)
	key := set.Namespace + "/" + pod.Name
	fl.exp.created(key, true)
	fl.Writes.Add(1)
	if _, err := fl.client.CoreV1().Pods(set.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		fl.exp.created(key, false)
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return fmt.Errorf("creating pod %s: %w", pod.Name, err)
	}
	return nil
}

func (fl *Floor) delete(ctx context.Context, pod *corev1.Pod) error {
	fl.Writes.Add(1)
	err := fl.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name,
		metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &pod.UID}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting pod %s: %w", pod.Name, err)
	}
	fl.exp.deleted(pod.UID)
	return nil
}

func podName(set *appsv1.StatefulSet, ord int) string { return planner.PodName(set.Name, int32(ord)) }

func ordinal(setName, podName string) (int, bool) {
	n, ok := planner.ParseOrdinal(setName, podName)
	return int(n), ok
}

func newClaim(set *appsv1.StatefulSet, tmpl corev1.PersistentVolumeClaim, ord int) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: tmpl.Name + "-" + podName(set, ord), Namespace: set.Namespace,
			Labels: labels.Set(set.Spec.Selector.MatchLabels)},
		Spec: *tmpl.Spec.DeepCopy(),
	}
}

func newPod(set *appsv1.StatefulSet, ord int) *corev1.Pod {
	name := podName(set, ord)
	t := set.Spec.Template.DeepCopy()
	lbls := map[string]string{}
	for k, v := range t.Labels {
		lbls[k] = v
	}
	lbls[appsv1.StatefulSetPodNameLabel] = name
	lbls[appsv1.PodIndexLabel] = strconv.Itoa(ord)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: set.Namespace, Labels: lbls, Annotations: t.Annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, appsv1.SchemeGroupVersion.WithKind("StatefulSet"))}},
		Spec: t.Spec,
	}
	pod.Spec.Hostname, pod.Spec.Subdomain = name, set.Spec.ServiceName
	for _, tmpl := range set.Spec.VolumeClaimTemplates {
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: tmpl.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: tmpl.Name + "-" + name}}})
	}
	return pod
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
