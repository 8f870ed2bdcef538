package realnode

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// A ConfigMap edit under configRevisions apply Reload, on a real kubelet:
// the set's pods keep running (same UID, no container restart, the same
// process), and each, highest ordinal first, gets its reload hook (a
// handshake, which this test answers as the application's side would)
// only after its live ConfigMap holds the new data; the test checks the
// application reads the new file before it answers Done, and logs how
// long after the hook started the kubelet had written it.
func TestAReloadReachesRealPodsFilesBeforeItsHookInOrder(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	sets, err := ostsclient.NewForConfig(shared.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	cms := client.CoreV1().ConfigMaps(ns)
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app"}, Data: map[string]string{"greeting": "one"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	set := reloadSet()
	if _, err := sets.StatefulSets(ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := map[string]*corev1.Pod{}
	for i := range 3 {
		name := fmt.Sprintf("cfg-%d", i)
		pods[name] = waitPod(ctx, t, ns, name, 2*time.Minute, "Ready", ready)
		if got := readFile(ctx, t, pods[name], "greeting", "one"); got != "one" {
			t.Fatalf("%s reads %q, want one", name, got)
		}
	}
	started := map[string]time.Time{}
	for name, p := range pods {
		started[name] = status(ctx, t, p).Started
	}

	cm, err := cms.Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["greeting"] = "two"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var order []string
	for range 3 {
		p := waitReloadPending(ctx, t, ns)
		old := p.Labels[appsv1.StatefulSetRevisionLabel]
		began := time.Now()
		if got := readFile(ctx, t, p, "greeting", "two"); got != "two" {
			t.Fatalf("%s still reads %q 90 s after its reload hook started", p.Name, got)
		}
		t.Logf("%s read the new file %s after its reload hook started", p.Name, time.Since(began).Round(10*time.Millisecond))
		order = append(order, p.Name)
		done := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, v1alpha1.ReloadHookLabel, v1alpha1.HookDone)
		if _, err := client.CoreV1().Pods(ns).Patch(ctx, p.Name, types.MergePatchType, []byte(done), metav1.PatchOptions{}); err != nil {
			t.Fatalf("labelling %s Done: %v", p.Name, err)
		}
		waitPod(ctx, t, ns, p.Name, 30*time.Second, "its revision label moved", func(q *corev1.Pod) bool {
			return q.Labels[appsv1.StatefulSetRevisionLabel] != old
		})
	}
	if want := []string{"cfg-2", "cfg-1", "cfg-0"}; !slices.Equal(order, want) {
		t.Errorf("reload hooks ran for %v, want %v", order, want)
	}
	for name, p := range pods {
		now, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if now.UID != p.UID || now.Status.ContainerStatuses[0].RestartCount != 0 || !status(ctx, t, now).Started.Equal(started[name]) {
			t.Errorf("%s was restarted: uid %s (was %s), restarts %d, started %s (was %s)", name, now.UID, p.UID,
				now.Status.ContainerStatuses[0].RestartCount, status(ctx, t, now).Started, started[name])
		}
	}
}

// reloadSet is three test applications reading ConfigMap app from
// /config, whose revisions hold its data, under apply Reload with a
// reload handshake.
func reloadSet() *v1alpha1.StatefulSet {
	set := &v1alpha1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}
	set.Spec.Replicas, set.Spec.ServiceName = ptr.To[int32](3), "cfg"
	set.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cfg"}}
	spec := appSpec("--files=/config")
	spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}}}}}
	spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/config"}}
	set.Spec.Template = corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "cfg"}}, Spec: spec}
	set.Spec.ConfigRevisions = &v1alpha1.ConfigRevisions{Apply: v1alpha1.ConfigApplyReload}
	set.Spec.Lifecycle = &v1alpha1.Lifecycle{Reload: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}, TimeoutSeconds: 300}}
	return set
}

// waitReloadPending waits until exactly one pod's reload hook is
// Pending, and returns it.
func waitReloadPending(ctx context.Context, t *testing.T, ns string) *corev1.Pod {
	t.Helper()
	var found *corev1.Pod
	var pending []string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		pending = nil
		for i := range list.Items {
			if list.Items[i].Labels[v1alpha1.ReloadHookLabel] == v1alpha1.HookPending {
				found, pending = &list.Items[i], append(pending, list.Items[i].Name)
			}
		}
		return len(pending) == 1, nil
	})
	if err != nil {
		t.Fatalf("no single pod with its reload hook Pending: %v (pending %v)", err, pending)
	}
	return found
}

// readFile reads the file name from the pod's application until it is
// want, for at most 90 s (past the kubelet's periodic sync of a minute),
// and returns what it read last.
func readFile(ctx context.Context, t *testing.T, p *corev1.Pod, name, want string) string {
	t.Helper()
	var got string
	_ = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		resp, err := httpClient.Get(appURL(p, "/files/"+name))
		if err != nil {
			return false, nil
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			return false, nil
		}
		got = strings.TrimSpace(string(body))
		return got == want, nil
	})
	return got
}
