package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// headlessService is examples/web.yaml's Service "nginx": headless, port
// "web" 80, selecting the set's pods.
func headlessService(t *testing.T, ns string, publishNotReady bool) {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: ns},
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "nginx"},
			Ports:                    []corev1.ServicePort{{Name: "web", Port: 80}},
			PublishNotReadyAddresses: publishNotReady,
		},
	}
	if _, err := client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// lookup asks the plane's cluster DNS for name (relative to the
// namespace's svc domain) and returns the answers' values, sorted.
func lookup(t *testing.T, ns, name string, qtype uint16) ([]string, error) {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(name+"."+ns+".svc.cluster.local.", qtype)
	r, _, err := (&dns.Client{Timeout: 5 * time.Second}).Exchange(m, planetest.Plane().DNSAddr())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, rr := range r.Answer {
		switch v := rr.(type) {
		case *dns.A:
			out = append(out, v.A.String())
		case *dns.SRV:
			out = append(out, fmt.Sprintf("%d %s", v.Port, strings.TrimSuffix(v.Target, "."+ns+".svc.cluster.local.")))
		}
	}
	slices.Sort(out)
	return out, nil
}

// podIPs are the IPs of the named pods, in order.
func podIPs(t *testing.T, ns string, names ...string) []string {
	t.Helper()
	var out []string
	for _, name := range names {
		p, err := client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Status.PodIP)
	}
	return out
}

// answersBecome waits until a lookup of name answers want.
func answersBecome(t *testing.T, ns, name string, qtype uint16, want func() []string) {
	t.Helper()
	waitFor(t, time.Minute, name+" to answer", func() (bool, error) {
		got, err := lookup(t, ns, name, qtype)
		if err != nil {
			return false, err
		}
		w := want()
		slices.Sort(w)
		if !slices.Equal(got, w) {
			return false, fmt.Errorf("%s answers %v, want %v", name, got, w)
		}
		return true, nil
	})
}

// The seed walk-through's stable network identity resolves on the plane:
// web-N.nginx.<ns>.svc.cluster.local is pod web-N's address, the Service
// name lists the Ready pods, SRV lists each pod's name; a pod that is
// deleted and made again at another address is found there under its old
// name. The simulated nodes hand a freed address to the next pod, so the
// test holds web-0's new pod unscheduled (OnDelete, a node selector no
// node matches yet) until other pods hold its old address. The simulated
// nodes share one address pool, so a pod of a test running beside this
// one could take the freed address first: the test does not call
// t.Parallel, and Go runs it alone, before the parallel tests.
func TestStableNetworkIdentityResolvesInTheClusterDNS(t *testing.T) {
	ns := newNamespace(t)
	startOrdinal(t, ns)
	headlessService(t, ns, false)
	createSet(t, webSet(ns, onDelete()))
	waitSet(t, ns, time.Minute, "3 ready replicas", settled)
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		answersBecome(t, ns, name+".nginx", dns.TypeA, func() []string { return podIPs(t, ns, name) })
	}
	answersBecome(t, ns, "nginx", dns.TypeA, func() []string { return podIPs(t, ns, "web-0", "web-1", "web-2") })
	answersBecome(t, ns, "_web._tcp.nginx", dns.TypeSRV, func() []string {
		return []string{"80 web-0.nginx", "80 web-1.nginx", "80 web-2.nginx"}
	})

	const key = "ordinal.test/dns-move"
	updateSet(t, ns, func(s *appsv1.StatefulSet) { nodeSelector(key, ns)(s) })
	old, _ := getPod(t, ns, "web-0")
	externalDelete(ns, old.UID)
	if err := client.CoreV1().Pods(ns).Delete(context.Background(), "web-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "web-0 made again, unscheduled", func() (bool, error) {
		p, ok := getPod(t, ns, "web-0")
		return ok && p.UID != old.UID, nil
	})
	answersBecome(t, ns, "web-0.nginx", dns.TypeA, func() []string { return nil })
	holdAddress(t, ns, old.Status.PodIP)
	openANode(t, key, ns)
	waitFor(t, time.Minute, "web-0 Ready at a new address", func() (bool, error) {
		p, ok := getPod(t, ns, "web-0")
		return ok && p.Status.PodIP != "" && isReady(p), nil
	})
	now := podIPs(t, ns, "web-0")
	if now[0] == old.Status.PodIP {
		t.Fatalf("web-0 is at %s again", now[0])
	}
	answersBecome(t, ns, "web-0.nginx", dns.TypeA, func() []string { return now })
}

// holdAddress starts bare pods in ns until one of them has addr, so that
// no other pod gets it; at most 30.
func holdAddress(t *testing.T, ns, addr string) {
	t.Helper()
	for i := range 30 {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("hold-%d", i), Namespace: ns},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: imageOld}}},
		}
		if _, err := client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var ip string
		waitFor(t, time.Minute, pod.Name+" to get an address", func() (bool, error) {
			p, ok := getPod(t, ns, pod.Name)
			if ok {
				ip = p.Status.PodIP
			}
			return ip != "", nil
		})
		if ip == addr {
			return
		}
	}
	t.Fatalf("no pod of 30 got address %s", addr)
}

// A Service with publishNotReadyAddresses lists pods that are not Ready;
// one without lists only Ready pods.
func TestPublishNotReadyAddressesListsUnreadyPods(t *testing.T) {
	t.Parallel()
	for _, publish := range []bool{false, true} {
		t.Run(fmt.Sprintf("publish %v", publish), func(t *testing.T) {
			t.Parallel()
			ns := newNamespace(t)
			startOrdinal(t, ns)
			headlessService(t, ns, publish)
			createSet(t, webSet(ns, replicas(2), parallel(), podAnnotation(behaviorKey, "never-ready")))
			waitFor(t, time.Minute, "2 running pods with addresses", func() (bool, error) {
				pods := listPods(t, ns)
				running := 0
				for _, p := range pods {
					if p.Status.PodIP != "" && p.Status.Phase == corev1.PodRunning {
						running++
					}
				}
				return running == 2, nil
			})
			// The slice lists both pods (Ready or not) before the DNS is
			// asked, so an empty answer is the DNS's, not a lag.
			waitFor(t, time.Minute, "the EndpointSlice to list both pods", func() (bool, error) {
				list, err := client.DiscoveryV1().EndpointSlices(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=nginx"})
				n := 0
				if err == nil {
					for _, es := range list.Items {
						n += len(es.Endpoints)
					}
				}
				return n == 2, err
			})
			want := func(names ...string) func() []string {
				return func() []string {
					if !publish {
						return nil
					}
					return podIPs(t, ns, names...)
				}
			}
			answersBecome(t, ns, "web-1.nginx", dns.TypeA, want("web-1"))
			answersBecome(t, ns, "nginx", dns.TypeA, want("web-0", "web-1"))
		})
	}
}
