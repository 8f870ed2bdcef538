package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// podUpdate sets rollingUpdate.podUpdatePolicy.
func podUpdate(policy v1alpha1.PodUpdatePolicy) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { rollingUpdateOf(s).PodUpdatePolicy = policy }
}

// cpuRequest gives the set's container a cpu request.
func cpuRequest(q string) setOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}
	}
}

// cpuPatch raises the container's cpu request to 200m.
const cpuPatch = `[{"op":"replace","path":"/spec/template/spec/containers/0/resources/requests/cpu","value":"200m"}]`

// podIdentity is what an update in place must keep of a pod.
type podIdentity struct {
	uid  types.UID
	node string
}

func identities(t *testing.T, ns string) map[string]podIdentity {
	t.Helper()
	out := map[string]podIdentity{}
	for _, p := range listPods(t, ns) {
		out[p.Name] = podIdentity{p.UID, p.Spec.NodeName}
	}
	return out
}

// gateCondition is the pod's in-place readiness gate condition's status.
func gateCondition(p *corev1.Pod) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == v1alpha1.InPlaceReadinessGate {
			return c.Status
		}
	}
	return ""
}

// createService makes the set's Service, so that the plane's EndpointSlice
// controller lists its pods.
func createService(t *testing.T, ns string) {
	t.Helper()
	_, err := client.CoreV1().Services(ns).Create(context.Background(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "nginx"},
			Ports: []corev1.ServicePort{{Name: "web", Port: 80}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating service: %v", err)
	}
}

// endpointWatch polls the set's Pods and EndpointSlices while a rollout
// runs: it records each pod seen with its gate False and listed as a
// ready endpoint at the same time after the EndpointSlice controller had
// time to see the gate (a violation), and each pod seen out of the
// endpoints while its gate was False (what the gate is for).
type endpointWatch struct {
	mu        sync.Mutex
	leftReady []string
	outOfSvc  map[string]bool
	stop      chan struct{}
	done      chan struct{}
}

func watchEndpoints(t *testing.T, ns string) *endpointWatch {
	w := &endpointWatch{outOfSvc: map[string]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	falseSince := map[string]time.Time{}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			ready := readyEndpoints(ns)
			pods, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
			if err != nil || ready == nil {
				continue
			}
			w.mu.Lock()
			for i := range pods.Items {
				p := &pods.Items[i]
				if gateCondition(p) != corev1.ConditionFalse {
					delete(falseSince, p.Name)
					continue
				}
				if _, ok := falseSince[p.Name]; !ok {
					falseSince[p.Name] = time.Now()
				}
				switch {
				case !ready[p.Name]:
					w.outOfSvc[p.Name] = true
				case time.Since(falseSince[p.Name]) > 5*time.Second:
					w.leftReady = append(w.leftReady, p.Name)
				}
			}
			w.mu.Unlock()
		}
	}()
	t.Cleanup(w.finish)
	return w
}

func (w *endpointWatch) finish() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

// readyEndpoints is the pods listed as ready endpoints of the nginx
// Service, nil when the slices cannot be read.
func readyEndpoints(ns string) map[string]bool {
	slices, err := client.DiscoveryV1().EndpointSlices(ns).List(context.Background(), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=nginx"})
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, s := range slices.Items {
		for _, e := range s.Endpoints {
			if e.TargetRef != nil && (e.Conditions.Ready == nil || *e.Conditions.Ready) {
				out[e.TargetRef.Name] = true
			}
		}
	}
	return out
}

// An image change under InPlaceIfPossible keeps every pod (UID, node),
// restarts its container with the new image, and takes each pod out of
// the Service's endpoints (its gate False) for the grace period of 2 s
// before changing it.
func TestInPlaceImageUpdateKeepsThePodsAndLeavesTheEndpointsFirst(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	createService(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3)), podUpdate(v1alpha1.PodUpdateInPlaceIfPossible), func(s *v1alpha1.StatefulSet) {
		rollingUpdateOf(s).InPlace = &v1alpha1.InPlaceUpdate{GracePeriodSeconds: 2}
	}))
	waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)
	for _, p := range listPods(t, ns) {
		if len(p.Spec.ReadinessGates) != 1 || p.Spec.ReadinessGates[0].ConditionType != v1alpha1.InPlaceReadinessGate || gateCondition(&p) != corev1.ConditionTrue {
			t.Fatalf("pod %s: readiness gates %v, gate condition %q; want the controller's gate, True", p.Name, p.Spec.ReadinessGates, gateCondition(&p))
		}
	}
	waitFor(t, 30*time.Second, "every pod a ready endpoint", func() (bool, error) {
		ready := readyEndpoints(ns)
		return len(ready) == 3, fmt.Errorf("ready endpoints %v", ready)
	})
	before := identities(t, ns)
	w := watchEndpoints(t, ns)
	jsonPatchExtended(t, ns, `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"`+imageNew+`"}]`)
	set := waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)
	w.finish()

	if got := identities(t, ns); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("pods after the in-place rollout %v, want the same UIDs and nodes as before %v", got, before)
	}
	for _, p := range listPods(t, ns) {
		cs := p.Status.ContainerStatuses
		switch {
		case p.Spec.Containers[0].Image != imageNew || len(cs) != 1 || cs[0].Image != imageNew:
			t.Errorf("pod %s runs %v, want %s", p.Name, cs, imageNew)
		case cs[0].RestartCount != 1:
			t.Errorf("pod %s: restart count %d, want 1 (its container restarted once, for the new image)", p.Name, cs[0].RestartCount)
		case p.Labels["controller-revision-hash"] != set.Status.UpdateRevision:
			t.Errorf("pod %s at revision %s, want %s", p.Name, p.Labels["controller-revision-hash"], set.Status.UpdateRevision)
		case p.Annotations[v1alpha1.InPlaceUpdateAnnotation] == "":
			t.Errorf("pod %s has no in-place record", p.Name)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.leftReady) > 0 {
		t.Errorf("pods stayed ready endpoints with their gate False for over 5s: %v", w.leftReady)
	}
	if len(w.outOfSvc) != 3 {
		t.Errorf("pods seen out of the endpoints while their gate was False: %v, want all 3", w.outOfSvc)
	}
}

// A cpu change goes through the resize subresource: same pods, no
// container restart, the new request in spec and in the container's
// status.
func TestInPlaceResizeKeepsThePodsRunning(t *testing.T) {
	t.Parallel()
	ns, before := changeInPlaceSet(t, webSet("", replicas(2), cpuRequest("100m")), v1alpha1.PodUpdateInPlaceOnly, cpuPatch)
	waitExtended(t, ns, 2*time.Minute, "the resize rolled out", extendedSettled)
	if got := identities(t, ns); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("pods after the resize %v, want %v", got, before)
	}
	want := resource.MustParse("200m")
	for _, p := range listPods(t, ns) {
		cs := p.Status.ContainerStatuses
		switch {
		case p.Spec.Containers[0].Resources.Requests.Cpu().Cmp(want) != 0:
			t.Errorf("pod %s: spec cpu %s, want 200m", p.Name, p.Spec.Containers[0].Resources.Requests.Cpu())
		case len(cs) != 1 || cs[0].Resources == nil || cs[0].Resources.Requests.Cpu().Cmp(want) != 0:
			t.Errorf("pod %s: container status resources %v, want cpu 200m", p.Name, cs)
		case cs[0].RestartCount != 0:
			t.Errorf("pod %s: restart count %d, want 0", p.Name, cs[0].RestartCount)
		}
	}
}

// A change that cannot be made in place recreates the pods under
// InPlaceIfPossible, and holds an InPlaceOnly rollout with blockedBy, a
// Warning and a failed Progressing condition, changing no pod.
func TestInPlaceFallbackAndHold(t *testing.T) {
	t.Parallel()
	envPatch := `[{"op":"add","path":"/spec/template/spec/containers/0/env","value":[{"name":"MODE","value":"b"}]}]`
	t.Run("InPlaceIfPossible recreates", func(t *testing.T) {
		t.Parallel()
		ns, before := changeInPlaceSet(t, webSet("", replicas(2)), v1alpha1.PodUpdateInPlaceIfPossible, envPatch)
		waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)
		for name, id := range identities(t, ns) {
			if id.uid == before[name].uid {
				t.Errorf("pod %s kept its UID; an env change must recreate it", name)
			}
		}
	})
	t.Run("InPlaceOnly holds", func(t *testing.T) {
		t.Parallel()
		ns, before := changeInPlaceSet(t, webSet("", replicas(2)), v1alpha1.PodUpdateInPlaceOnly, envPatch)
		waitExtended(t, ns, time.Minute, "the rollout held at web-1", func(s *v1alpha1.StatefulSet) error {
			b := s.Status.BlockedBy
			if len(b) != 1 || b[0].Pod != "web-1" || b[0].Reason != "InPlaceImpossible" || !b[0].Permanent {
				return fmt.Errorf("blockedBy %+v, want web-1 InPlaceImpossible", b)
			}
			if c := condition(s, v1alpha1.ConditionProgressing); c.Status != metav1.ConditionFalse {
				return fmt.Errorf("Progressing %+v, want False", c)
			}
			return nil
		})
		waitForEvent(t, ns, "InPlaceImpossible")
		if got := identities(t, ns); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("pods %v, want them untouched: %v", got, before)
		}
	})
}

// changeInPlaceSet runs set (its namespace filled in) as an extended set
// updating pods under policy, waits until it is ready, applies the JSON
// patch and returns the namespace and the pods' identities before it.
func changeInPlaceSet(t *testing.T, set *appsv1.StatefulSet, policy v1alpha1.PodUpdatePolicy, patch string) (string, map[string]podIdentity) {
	t.Helper()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	set.Namespace = ns
	createExtended(t, asExtended(t, set, podUpdate(policy)))
	waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)
	before := identities(t, ns)
	jsonPatchExtended(t, ns, patch)
	return ns, before
}

// A resize the node reports Infeasible falls back to recreating the pod
// under InPlaceIfPossible, and holds InPlaceOnly with blockedBy.
func TestAnInfeasibleResize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		policy    v1alpha1.PodUpdatePolicy
		recreated bool
	}{{v1alpha1.PodUpdateInPlaceIfPossible, true}, {v1alpha1.PodUpdateInPlaceOnly, false}} {
		t.Run(string(c.policy), func(t *testing.T) {
			t.Parallel()
			set := webSet("", replicas(2), cpuRequest("100m"), podAnnotation("sim.ordinal.dev/resize", "infeasible"))
			ns, before := changeInPlaceSet(t, set, c.policy, cpuPatch)
			if c.recreated {
				waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)
				for name, id := range identities(t, ns) {
					if id.uid == before[name].uid {
						t.Errorf("pod %s kept its UID; an infeasible resize must recreate it", name)
					}
				}
				return
			}
			waitExtended(t, ns, time.Minute, "the rollout held", func(s *v1alpha1.StatefulSet) error {
				b := s.Status.BlockedBy
				if len(b) != 1 || b[0].Pod != "web-1" || b[0].Reason != "PodResizeInfeasible" {
					return fmt.Errorf("blockedBy %+v, want web-1 PodResizeInfeasible", b)
				}
				return nil
			})
			if got := identities(t, ns); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Errorf("pods %v, want them kept: %v", got, before)
			}
		})
	}
}

// logEvents logs ns's events when the test has failed, for the reader.
func logEvents(t *testing.T, ns string) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		events, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return
		}
		for _, e := range events.Items {
			t.Logf("event %s %s/%s %s: %s", e.LastTimestamp.Format("15:04:05.000"), e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
		}
	})
}

// jsonPatchExtended applies a JSON patch to the set: unlike a merge patch,
// which replaces a custom resource's whole containers list, it changes one
// field of a container and keeps the rest (ports, say, which a pod cannot
// change in place).
func jsonPatchExtended(t *testing.T, ns, patch string) {
	t.Helper()
	if _, err := extendedSets(t, ns).Patch(context.Background(), setName, types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patching extended set with %s: %v", patch, err)
	}
}
