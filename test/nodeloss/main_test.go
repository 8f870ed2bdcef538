package nodeloss

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/invariant"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// grace is the plane's node monitor grace period.
const grace = 8 * time.Second

// quarantine is the controller's --node-loss-quarantine: how long a host
// must be lost before volumes: Recreate gives its claims up.
const quarantine = 15 * time.Second

var (
	client kubernetes.Interface
	osts   *ostsclient.Client
	// kubeconfig is the plane's admin kubeconfig, for the CLI.
	kubeconfig string
)

// TestMain starts the package's plane with a short node monitor grace
// period and the EvictionRequest API served (the EvictionRequestAPI gate,
// with the plane's eviction request controller), and Ordinal's controller
// for both kinds as a cluster runs it:
// under the ServiceAccount and roles of config/rbac.yaml, which let it
// delete claims only in a namespace that binds ordinal-claim-deleter
// (optIn).
func TestMain(m *testing.M) {
	planetest.Main(m, func(cfg *plane.Config) {
		cfg.NodeMonitorGracePeriod = grace
		cfg.StatefulSetController = plane.ControllerNone
		cfg.FeatureGates = map[string]bool{plane.GateEvictionRequests: true}
	}, func() {
		client = planetest.Client()
		kubeconfig = planetest.Plane().KubeconfigPath()
		var err error
		if osts, err = ostsclient.NewForConfig(planetest.Plane().RESTConfig()); err != nil {
			panic(err)
		}
		if err := runController(); err != nil {
			panic(err)
		}
	})
}

// newNamespace creates a namespace watched by the invariant checker, with
// nodes and volumes, for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns, err := client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "nl-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	w := invariant.Watch(context.Background(), invariant.Clients{Kube: client, Extended: osts}, ns.Name, invariant.Options{Nodes: true, Quarantine: quarantine, Evictions: true})
	w.WaitSynced()
	watchers.Store(ns.Name, w)
	t.Cleanup(func() {
		w.Stop()
		if len(w.Violations()) > 0 {
			_ = w.WriteHistory(os.Stdout)
			printEvents(ns.Name)
		}
		w.Assert(t)
		_ = client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// watchers holds each test namespace's invariant watcher.
var watchers sync.Map

// fence marks node out of service (force: although it is Ready). Taint
// eviction then deletes the test's pods there, which the invariant watcher
// is told are not the set controller's deletions.
func fence(t *testing.T, ns, node string, force bool) {
	t.Helper()
	pods, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := watchers.Load(ns); ok {
		for _, p := range pods.Items {
			if p.Spec.NodeName == node {
				w.(*invariant.Watcher).ExternalDelete(p.UID)
			}
		}
	}
	do := nodes.Fence
	if force {
		do = nodes.ForceFence
	}
	if err := do(context.Background(), client, node); err != nil {
		t.Fatal(err)
	}
}

// groupKey labels and taints the nodes of one test; its pods select and
// tolerate them.
const groupKey = "nodeloss.ordinal.dev/test"

// addNode registers a simulated node for the test of namespace ns and
// waits until it is Ready. Like a node named by its DNS name, it is called
// <ns>-<suffix>.nodes.ordinal.internal and labelled with the hostname
// <ns>-<suffix> (hostOf), so no test passes because the two agree. It
// stays until the plane stops: deleting it would make the node-failure
// policy act while the test's watcher stops.
func addNode(t *testing.T, ns, suffix string) string {
	t.Helper()
	name := ns + "-" + suffix + "." + nodes.FQDNDomain
	taint := corev1.Taint{Key: groupKey, Value: ns, Effect: corev1.TaintEffectNoSchedule}
	labels := map[string]string{groupKey: ns, corev1.LabelHostname: hostOf(name)}
	if err := nodes.Register(context.Background(), client, name, labels, []corev1.Taint{taint}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "node "+name+" Ready", func() (bool, error) {
		ready, err := nodeReady(name)
		return ready, err
	})
	return name
}

// hostOf is the hostname label addNode gives node name.
func hostOf(name string) string { return strings.TrimSuffix(name, "."+nodes.FQDNDomain) }

func nodeReady(name string) (bool, error) {
	n, err := client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue, fmt.Errorf("Ready %s (%s)", c.Status, c.Reason)
		}
	}
	return false, fmt.Errorf("no Ready condition")
}

// set is a set of replicas pods for the test of namespace ns on its nodes,
// with a claim template "data" of class (none when class is "-").
func set(ns, name string, replicas int32, class string) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	s := &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(replicas), ServiceName: name, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				NodeSelector: map[string]string{groupKey: ns},
				Tolerations:  []corev1.Toleration{{Key: groupKey, Operator: corev1.TolerationOpEqual, Value: ns, Effect: corev1.TaintEffectNoSchedule}},
				Containers:   []corev1.Container{{Name: "app", Image: "app:1"}},
			}},
		},
	}
	if class != "-" {
		claim := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		}}
		if class != "" {
			claim.Spec.StorageClassName = ptr.To(class)
		}
		s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{claim}
	}
	return s
}

// extendedSet is s as the extended kind, with policy.
func extendedSet(t *testing.T, s *appsv1.StatefulSet, policy *v1alpha1.NodeFailurePolicy) *v1alpha1.StatefulSet {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	out := &v1alpha1.StatefulSet{}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
	out.APIVersion, out.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.Kind.Kind
	out.Spec.NodeFailurePolicy = policy
	return out
}

func createExtended(t *testing.T, s *appsv1.StatefulSet, policy *v1alpha1.NodeFailurePolicy) {
	t.Helper()
	if _, err := osts.StatefulSets(s.Namespace).Create(context.Background(), extendedSet(t, s, policy), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating extended set %s: %v", s.Name, err)
	}
}

// readyOn waits until pod ns/name is Running and Ready on node, and
// returns it.
func readyOn(t *testing.T, ns, name, node string, timeout time.Duration) *corev1.Pod {
	t.Helper()
	var out *corev1.Pod
	waitFor(t, timeout, name+" Ready on "+node, func() (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		out = p
		if p.Spec.NodeName != node || p.DeletionTimestamp != nil || !isReady(p) {
			return false, fmt.Errorf("on %q, phase %s, ready %v, terminating %v", p.Spec.NodeName, p.Status.Phase, isReady(p), p.DeletionTimestamp != nil)
		}
		return true, nil
	})
	return out
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func claimOf(t *testing.T, ns, name string) *corev1.PersistentVolumeClaim {
	t.Helper()
	c, err := client.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading claim %s: %v", name, err)
	}
	return c
}

// failNode stops node's heartbeats and waits until it is NotReady.
func failNode(t *testing.T, node string) {
	t.Helper()
	if err := nodes.Fail(context.Background(), client, node); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 4*grace, "node "+node+" NotReady", func() (bool, error) {
		ready, err := nodeReady(node)
		if lease, lerr := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(context.Background(), node, metav1.GetOptions{}); lerr == nil {
			err = fmt.Errorf("%w; lease held by %s, renewed %s", err, ptr.Deref(lease.Spec.HolderIdentity, ""), lease.Spec.RenewTime)
		}
		return !ready && err != nil, err
	})
}

// hasEvent reports whether the set ns/name has an event of reason.
func hasEvent(ns, name, reason string) (bool, error) {
	evs, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	var reasons []string
	for _, e := range evs.Items {
		if e.InvolvedObject.Name == name && e.Reason == reason {
			return true, nil
		}
		reasons = append(reasons, e.InvolvedObject.Name+":"+e.Reason)
	}
	return false, fmt.Errorf("events: %v", reasons)
}

// waitFor is planetest.WaitFor.
var waitFor = planetest.WaitFor

// printEvents writes the namespace's events, which name the component
// that deleted or evicted a pod: a deletion leaves no field manager.
func printEvents(ns string) {
	list, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fmt.Printf("events of %s: %v\n", ns, err)
		return
	}
	for _, e := range list.Items {
		by := e.Source.Component
		if by == "" {
			by = e.ReportingController
		}
		fmt.Printf("event %s %s %s/%s %s x%d: %s\n", e.LastTimestamp.Format("15:04:05"), by, e.InvolvedObject.Kind, e.InvolvedObject.Name,
			e.Reason, max(e.Count, 1), e.Message)
	}
}
