package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/kubeclient"
)

// This package's plane runs without the EvictionRequestAPI gate, as 1.37
// does by default: the API server serves no EvictionRequests, the
// controller names itself in no pod's eviction responders (the API server
// would drop the field anyway), and `ordinal node drain --via
// eviction-requests` is refused before it cordons anything, saying how to
// serve them (that --via auto then evicts, as it always did, is
// internal/plane/nodes' unit test; test/nodeloss drains through requests
// on a plane with the gate).
func TestWithoutTheEvictionRequestAPIPodsNameNoResponderAndDrainsEvict(t *testing.T) {
	t.Parallel()
	if served, err := kubeclient.EvictionRequestsServed(client.Discovery()); err != nil || served {
		t.Fatalf("EvictionRequests served %v (%v) on a plane without the gate", served, err)
	}
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(1))))
	waitExtended(t, ns, time.Minute, "1 ready replica", extendedSettled)
	pod, err := client.CoreV1().Pods(ns).Get(context.Background(), "web-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pod.Spec.EvictionResponders) != 0 {
		t.Errorf("web-0 names eviction responders %+v", pod.Spec.EvictionResponders)
	}
	node := pod.Spec.NodeName
	r := runOrdinal(t, ns, "node", "drain", node, "--via", "eviction-requests")
	if r.code == 0 || !strings.Contains(r.err, "does not serve EvictionRequests") || !strings.Contains(r.err, "--feature-gates=EvictionRequestAPI=true") {
		t.Errorf("drain --via eviction-requests: exit %d, stderr %q; want a refusal saying how to serve them", r.code, r.err)
	}
	n, err := client.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil || n.Spec.Unschedulable {
		t.Errorf("node %s cordoned by a refused drain (err %v)", node, err)
	}
}
