package realnode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// readExample decodes examples/real-web.yaml, docs/realnode.md's manifest for
// the real node: its Service and StatefulSet.
func readExample(t *testing.T) (*corev1.Service, *appsv1.StatefulSet) {
	t.Helper()
	raw, err := os.ReadFile("../../examples/real-web.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var svc corev1.Service
	var sts appsv1.StatefulSet
	for _, doc := range bytes.Split(raw, []byte("\n---\n")) {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "Service":
			err = yaml.UnmarshalStrict(doc, &svc)
		case "StatefulSet":
			err = yaml.UnmarshalStrict(doc, &sts)
		}
		if err != nil {
			t.Fatalf("examples/real-web.yaml: %v", err)
		}
	}
	if svc.Name == "" || sts.Name == "" {
		t.Fatal("examples/real-web.yaml lacks its Service or StatefulSet")
	}
	return &svc, &sts
}

// docs/realnode.md's walk-through with real containers: the set starts in
// order, each pod only once the one before it is Ready; every pod's stable
// name resolves from inside a pod through the plane's DNS; a deleted pod
// comes back with its volume's marker; a new image rolls out from the
// highest ordinal down; a partition holds the pods below it back.
func TestTheSeedWalkThroughRunsOnRealContainers(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	svc, sts := readExample(t)
	if _, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	order := watchOrder(ctx, t, ns, "app=real")
	if _, err := client.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := waitSetReady(ctx, t, ns, "real", 3, "")
	seen := <-order
	for _, note := range seen.notes {
		t.Log(note)
	}
	if seen.err != nil {
		t.Error(seen.err)
	}
	if seen.err != nil || len(seen.notes) > 0 {
		logEvents(ctx, t, ns)
	}
	markers := map[string]string{}
	for _, p := range pods {
		st := status(ctx, t, p)
		if st.Pod != p.Name || st.Version != "v1" || st.Starts != 1 {
			t.Errorf("%s answers %+v", p.Name, st)
		}
		markers[p.Name] = st.Marker
	}

	t.Run("stable names resolve from inside a pod", func(t *testing.T) {
		for _, p := range pods {
			name := fmt.Sprintf("%s.real.%s.svc.cluster.local", p.Name, ns)
			if got := resolveIn(ctx, t, pods[0], name); !slices.Equal(got, []string{p.Status.PodIP}) {
				t.Errorf("%s resolves to %v in %s, want [%s]", name, got, pods[0].Name, p.Status.PodIP)
			}
		}
		// The search path the kubelet writes makes the short form work too.
		if got := resolveIn(ctx, t, pods[2], "real-1.real"); !slices.Equal(got, []string{pods[1].Status.PodIP}) {
			t.Errorf("real-1.real resolves to %v, want [%s]", got, pods[1].Status.PodIP)
		}
	})

	t.Run("a deleted pod comes back with its volume", func(t *testing.T) {
		old := pods[1]
		if err := client.CoreV1().Pods(ns).Delete(ctx, old.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		back := waitPod(ctx, t, ns, old.Name, 2*time.Minute, "recreated and Ready", func(p *corev1.Pod) bool {
			return p.UID != old.UID && ready(p)
		})
		st := status(ctx, t, back)
		if st.Marker != markers[old.Name] || st.Starts != 2 {
			t.Errorf("the recreated %s found marker %q after %d starts, want %q after 2", old.Name, st.Marker, st.Starts, markers[old.Name])
		}
		// Its log is read through the API server and the kubelet.
		raw, err := client.CoreV1().Pods(ns).GetLogs(back.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		if err != nil || !strings.Contains(string(raw), "ordinal-testapp v1 serving") {
			t.Errorf("kubectl logs %s: %q, %v", back.Name, raw, err)
		}
	})

	t.Run("a new image rolls out from the highest ordinal down", func(t *testing.T) {
		v2 := testAppImage(ctx, t, "v2")
		order := watchRollout(ctx, t, ns, "app=real")
		setImage(ctx, t, ns, "real", v2, nil)
		pods := waitSetReady(ctx, t, ns, "real", 3, v2)
		if got := <-order; !slices.Equal(got, []string{"real-2", "real-1", "real-0"}) {
			t.Errorf("pods replaced in the order %v, want real-2, real-1, real-0", got)
		}
		for _, p := range pods {
			if st := status(ctx, t, p); st.Version != "v2" || st.Marker != markers[p.Name] {
				t.Errorf("%s after the update: %+v", p.Name, st)
			}
		}
	})

	t.Run("a partition holds the lower ordinals back", func(t *testing.T) {
		v3 := testAppImage(ctx, t, "v3")
		setImage(ctx, t, ns, "real", v3, ptr.To[int32](2))
		waitPod(ctx, t, ns, "real-2", 2*time.Minute, "updated to v3 and Ready", func(p *corev1.Pod) bool {
			return p.Spec.Containers[0].Image == v3 && ready(p)
		})
		waitSetStatus(ctx, t, ns, "real", func(s appsv1.StatefulSetStatus) bool { return s.UpdatedReplicas == 1 && s.ReadyReplicas == 3 })
		for _, name := range []string{"real-0", "real-1"} {
			p, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if st := status(ctx, t, p); st.Version != "v2" {
				t.Errorf("%s below the partition runs %s, want v2", name, st.Version)
			}
		}
	})
}

// watchOrder reports whether the set's three pods were created in order,
// each only after the controller could have seen every lower one Running
// and Ready: the watch shows every pod's changes in the order the API
// server made them, so a lower pod's Running and Ready state must come
// before the higher pod's creation. The controller decides on what its
// cache last showed; a readiness probe that fails a moment later, before
// the create lands, is not the controller's to see, and is logged (with
// the lower pod's history) rather than judged.
func watchOrder(ctx context.Context, t *testing.T, ns, selector string) <-chan orderSeen {
	t.Helper()
	w, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan orderSeen, 1)
	go func() {
		defer w.Stop()
		var notes []string
		everReady, readyNow := map[string]bool{}, map[string]bool{}
		history := map[string][]string{}
		created := 0
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			history[p.Name] = append(history[p.Name], fmt.Sprintf("%s rv=%s phase=%s ready=%v at %s",
				ev.Type, p.ResourceVersion, p.Status.Phase, ready(p), time.Now().Format("15:04:05.000")))
			if ev.Type == watch.Added {
				for i := range ordinal(p.Name) {
					lower := fmt.Sprintf("real-%d", i)
					seen := "\n  " + strings.Join(history[lower], "\n  ")
					if !everReady[lower] {
						out <- orderSeen{notes, fmt.Errorf("%s was created before %s was ever Running and Ready; %s was seen as:%s", p.Name, lower, lower, seen)}
						return
					}
					if !readyNow[lower] {
						notes = append(notes, fmt.Sprintf("%s was created after %s had been Ready, but %s was no longer Ready then:%s", p.Name, lower, lower, seen))
					}
				}
				if created++; created == 3 {
					out <- orderSeen{notes, nil}
					return
				}
			}
			readyNow[p.Name] = ready(p) && p.Status.Phase == corev1.PodRunning
			everReady[p.Name] = everReady[p.Name] || readyNow[p.Name]
		}
		out <- orderSeen{notes, fmt.Errorf("the watch ended after %d pods", created)}
	}()
	return out
}

// logEvents logs the namespace's events (the kubelet's probe failures
// among them), to tell why a pod was not Ready when expected.
func logEvents(ctx context.Context, t *testing.T, ns string) {
	t.Helper()
	events, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Logf("listing the events of %s: %v", ns, err)
		return
	}
	for _, e := range events.Items {
		t.Logf("event %s %s/%s %s: %s (x%d, last %s)", e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name,
			e.Reason, e.Message, e.Count, e.LastTimestamp.Format("15:04:05"))
	}
}

// orderSeen is what watchOrder saw: an error if the order was broken, and
// notes on lower pods that were Ready before a creation but not at it.
type orderSeen struct {
	notes []string
	err   error
}

// watchRollout reports the order in which the set's pods are deleted,
// once three have been.
func watchRollout(ctx context.Context, t *testing.T, ns, selector string) <-chan []string {
	t.Helper()
	w, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan []string, 1)
	go func() {
		defer w.Stop()
		var deleted []string
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || p.DeletionTimestamp == nil || slices.Contains(deleted, p.Name) {
				continue
			}
			if deleted = append(deleted, p.Name); len(deleted) == 3 {
				break
			}
		}
		out <- deleted
	}()
	return out
}

func ordinal(name string) int {
	var n int
	_, _ = fmt.Sscanf(name[strings.LastIndex(name, "-")+1:], "%d", &n)
	return n
}

// setImage changes the set's container image and, if given, its partition.
func setImage(ctx context.Context, t *testing.T, ns, name, image string, partition *int32) {
	t.Helper()
	patch := map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"containers": []map[string]any{{"name": "app", "image": image}}}}}}
	if partition != nil {
		patch["spec"].(map[string]any)["updateStrategy"] = map[string]any{"type": "RollingUpdate",
			"rollingUpdate": map[string]any{"partition": *partition}}
	}
	raw, _ := json.Marshal(patch)
	if _, err := client.AppsV1().StatefulSets(ns).Patch(ctx, name, "application/strategic-merge-patch+json", raw, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitSetReady waits for replicas Ready pods of the set, all with image
// when it is not empty, and returns them by ordinal.
func waitSetReady(ctx context.Context, t *testing.T, ns, name string, replicas int, image string) []*corev1.Pod {
	t.Helper()
	pods := make([]*corev1.Pod, replicas)
	for i := range replicas {
		pods[i] = waitPod(ctx, t, ns, fmt.Sprintf("%s-%d", name, i), 4*time.Minute, "Ready", func(p *corev1.Pod) bool {
			return ready(p) && p.DeletionTimestamp == nil && (image == "" || p.Spec.Containers[0].Image == image)
		})
	}
	return pods
}

func waitSetStatus(ctx context.Context, t *testing.T, ns, name string, cond func(appsv1.StatefulSetStatus) bool) {
	t.Helper()
	var last appsv1.StatefulSetStatus
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := client.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = s.Status
		return cond(s.Status), nil
	})
	if err != nil {
		t.Fatalf("set %s/%s: %v; last status %+v", ns, name, err, last)
	}
}

// resolveIn asks the application in pod p to resolve name with its own
// resolver (the kubelet's resolv.conf, pointing at the plane's DNS).
func resolveIn(ctx context.Context, t *testing.T, p *corev1.Pod, name string) []string {
	t.Helper()
	var addrs []string
	var last string
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		resp, err := httpClient.Get(appURL(p, "/resolve?name="+name))
		if err != nil {
			last = err.Error()
			return false, nil
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			var b bytes.Buffer
			_, _ = b.ReadFrom(resp.Body)
			last = b.String()
			return false, nil
		}
		return json.NewDecoder(resp.Body).Decode(&addrs) == nil, nil
	})
	if err != nil {
		t.Fatalf("resolving %s in %s: %v (%s)", name, p.Name, err, last)
	}
	slices.Sort(addrs)
	return addrs
}
