package bench

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func TestTheNodeDrainScenarioPlacesTheSetsThenDrainsOnce(t *testing.T) {
	for _, c := range []struct {
		sizes Sizes
		size  string
	}{{Sizes{}, "20×3"}, {Sizes{Sets: 5, SetReplicas: 4}, "5×4"}} {
		sc, err := buildScenario(ScenarioNodeDrain, c.sizes)
		if err != nil {
			t.Fatal(err)
		}
		names := func(steps []step) []string {
			var out []string
			for _, s := range steps {
				out = append(out, s.name)
			}
			return out
		}
		if sc.size != c.size || !sc.drain || sc.restart || sc.idle != 0 ||
			!slices.Equal(names(sc.setup), []string{"hold-nodes", "create", "free-a-node", "budgets"}) ||
			!slices.Equal(names(sc.measured), []string{"drain"}) {
			t.Errorf("%+v: size %s, drain %v, setup %v, measured %v", c.sizes, sc.size, sc.drain, names(sc.setup), names(sc.measured))
		}
	}
}

func TestASpreadSetRequiresANodeOfItsOwnForEachPod(t *testing.T) {
	ss := statefulSet(setSpec{name: "s0001", replicas: 3, spreadHosts: true})
	a := ss.Spec.Template.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("affinity %+v, want one required anti-affinity term", a)
	}
	term := a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	if term.TopologyKey != corev1.LabelHostname || !cmp.Equal(term.LabelSelector.MatchLabels, ss.Spec.Template.Labels) {
		t.Errorf("term %+v, want the set's own pods on %s", term, corev1.LabelHostname)
	}
	if statefulSet(setSpec{name: "web", replicas: 3}).Spec.Template.Spec.Affinity != nil {
		t.Error("a set that is not spread has an affinity")
	}
}

func TestAnExtendedSetWithItsOwnBudgetKeepsOneAndMovesOffADrainedNode(t *testing.T) {
	set := statefulSet(setSpec{name: "s0000", replicas: 3, spreadHosts: true, ownBudget: true})
	w := withOwnBudget(extendedWriter{}).(extendedWriter)
	ext, err := w.extended(set)
	if err != nil {
		t.Fatal(err)
	}
	if b := ext.Spec.DisruptionBudget; b == nil || b.MaxUnavailable == nil || b.MaxUnavailable.IntValue() != 1 ||
		ext.Spec.NodeDrainPolicy != v1alpha1.NodeDrainMove {
		t.Errorf("budget %+v, drain policy %q; want a budget of one pod and Move", b, ext.Spec.NodeDrainPolicy)
	}
	if ext.Spec.Template.Spec.Affinity == nil {
		t.Error("the extended set lost the template's anti-affinity")
	}
	plain, err := extendedWriter{}.extended(set)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Spec.DisruptionBudget != nil || plain.Spec.NodeDrainPolicy != "" {
		t.Errorf("a writer without ownBudget wrote budget %+v, policy %q", plain.Spec.DisruptionBudget, plain.Spec.NodeDrainPolicy)
	}
	if _, ok := withOwnBudget(appsWriter{}).(appsWriter); !ok || extendedKind(appsWriter{}) || !extendedKind(w) {
		t.Error("an apps/v1 writer is not left as it is, or the kinds are told apart wrongly")
	}
}

func TestPickNodesDrainsTheFirstNodeHoldingNothingElseAndSparesTheRest(t *testing.T) {
	nodes := []string{"n-3", "n-1", "n-0", "n-2"}
	cases := []struct {
		name    string
		names   []string
		busy    map[string]bool
		open    int
		drained string
		spare   []string
		err     string
	}{
		{"the first node by name is drained, the last spared", nodes, nil, 3, "n-0", []string{"n-3"}, ""},
		{"a node holding another pod is not drained", nodes, map[string]bool{"n-0": true}, 3, "n-1", []string{"n-3"}, ""},
		{"more nodes spare more", append(slices.Clone(nodes), "n-4"), nil, 3, "n-0", []string{"n-3", "n-4"}, ""},
		{"too few nodes for a free one", nodes[:3], nil, 3, "", nil, "3 nodes: the scenario needs 4"},
		{"no node free of other pods", nodes, map[string]bool{"n-0": true, "n-1": true, "n-2": true, "n-3": true}, 3, "", nil, "every node holds a pod"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			drained, spare, err := pickNodes(c.names, c.busy, c.open)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil || drained != c.drained || !slices.Equal(spare, c.spare) {
				t.Errorf("drained %s, spare %v, %v; want %s, %v", drained, spare, err, c.drained, c.spare)
			}
		})
	}
}

func TestPlacementWantsExactlyOneMemberOfEachSetOnTheDrainedNode(t *testing.T) {
	on := func(name, set, node string) *corev1.Pod {
		p := benchPod(name, set, imageV1, true)
		p.Spec.NodeName = node
		return p
	}
	want := map[string]desiredSet{"a": {Replicas: 2}, "b": {Replicas: 2}}
	good := []*corev1.Pod{on("a-0", "a", "n-0"), on("a-1", "a", "n-1"), on("b-0", "b", "n-1"), on("b-1", "b", "n-0")}
	if why := placement(good, want, "n-0"); why != "" {
		t.Errorf("one of each on n-0: %s", why)
	}
	bad := []*corev1.Pod{on("a-0", "a", "n-0"), on("a-1", "a", "n-0"), on("b-0", "b", "n-1"), on("b-1", "b", "n-2")}
	if why := placement(bad, want, "n-0"); why != "set a has 2 pods on node n-0, want 1; set b has 0 pods on node n-0, want 1" {
		t.Errorf("placement = %q", why)
	}
}

func TestBudgetsAreReadyOnceEachSetsAllowsOneEvictionOfAllItsMembers(t *testing.T) {
	pdb := func(name string, gen, observed int64, healthy, allowed int32) policyv1.PodDisruptionBudget {
		return policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: gen},
			Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: observed, CurrentHealthy: healthy, DisruptionsAllowed: allowed}}
	}
	want := map[string]desiredSet{"a": {Replicas: 3}, "b": {Replicas: 3}}
	cases := []struct {
		name string
		pdbs []policyv1.PodDisruptionBudget
		why  string
	}{
		{"both judged, one allowed each", []policyv1.PodDisruptionBudget{pdb("a", 1, 1, 3, 1), pdb("b", 2, 2, 3, 1)}, ""},
		{"a set without a budget", []policyv1.PodDisruptionBudget{pdb("a", 1, 1, 3, 1)}, "no PodDisruptionBudget b"},
		{"a budget not judged since its last change", []policyv1.PodDisruptionBudget{pdb("a", 2, 1, 3, 1), pdb("b", 1, 1, 3, 1)},
			"PodDisruptionBudget a not judged yet"},
		{"a budget that allows none", []policyv1.PodDisruptionBudget{pdb("a", 1, 1, 3, 1), pdb("b", 1, 1, 2, 0)},
			"PodDisruptionBudget b has 2 healthy and allows 0 disruptions, want 3 and 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if why := budgetsReady(c.pdbs, want); why != c.why {
				t.Errorf("budgetsReady = %q, want %q", why, c.why)
			}
		})
	}
	if h := handBudget("s0001"); h.Spec.MaxUnavailable.IntValue() != 1 || h.Spec.Selector.MatchLabels[setLabel] != "s0001" || h.Name != "s0001" {
		t.Errorf("hand-written budget %+v, want s0001's pods, one unavailable at most", h.Spec)
	}
}

// The drain cordons the node, evicts its pods at once, asks again after
// a budget's refusal, and leaves DaemonSet pods and other nodes' pods.
func TestTheEvictorDrainsANodeAsKubectlDoes(t *testing.T) {
	pod := func(name, node string, owner string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: benchNamespace, UID: types.UID(name + "-uid")},
			Spec: corev1.PodSpec{NodeName: node}}
		if owner != "" {
			p.OwnerReferences = []metav1.OwnerReference{{Kind: owner, Name: "x", Controller: ptrTo(true)}}
		}
		return p
	}
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n-0"}},
		pod("a-0", "n-0", "StatefulSet"), pod("b-0", "n-0", "StatefulSet"), pod("a-1", "n-1", "StatefulSet"), pod("ds", "n-0", "DaemonSet"))
	asked := map[string]int{}
	c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		name := a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction).Name
		asked[name]++
		if name == "b-0" && asked[name] == 1 {
			return true, nil, apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		}
		return true, nil, c.Tracker().Delete(corev1.SchemeGroupVersion.WithResource("pods"), benchNamespace, name)
	})
	e := &evictor{client: c, retry: 10 * time.Millisecond}
	if err := e.drain(context.Background(), "n-0", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"a-0": 1, "b-0": 2}, asked); diff != "" {
		t.Errorf("evictions asked (-want +got):\n%s", diff)
	}
	node, _ := c.CoreV1().Nodes().Get(context.Background(), "n-0", metav1.GetOptions{})
	if !node.Spec.Unschedulable {
		t.Error("the drained node is not cordoned")
	}
	left, _ := c.CoreV1().Pods(benchNamespace).List(context.Background(), metav1.ListOptions{})
	var names []string
	for _, p := range left.Items {
		names = append(names, p.Name)
	}
	if slices.Sort(names); !slices.Equal(names, []string{"a-1", "ds"}) {
		t.Errorf("pods left %v, want the other node's and the DaemonSet's", names)
	}
}

func TestTheDrainsClientCountsItsEvictionsByCode(t *testing.T) {
	codes := []int{http.StatusTooManyRequests, http.StatusCreated}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/eviction") {
			w.WriteHeader(codes[0])
			codes = codes[1:]
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	counts := &evictionCounts{}
	client := &http.Client{Transport: evictionCounter{next: http.DefaultTransport, counts: counts}}
	for _, req := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/namespaces/bench/pods/a-0/eviction"},
		{http.MethodGet, "/api/v1/namespaces/bench/pods/a-0"},
		{http.MethodPost, "/api/v1/namespaces/bench/pods/a-0/eviction"},
	} {
		r, _ := http.NewRequest(req.method, srv.URL+req.path, nil)
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if diff := cmp.Diff(map[int]int64{429: 1, 201: 1}, counts.snapshot()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if (*evictionCounts)(nil).snapshot() != nil {
		t.Error("no counter has counts")
	}
}

// The drain's evictions, and the deletions they made, are the harness's:
// the contender is charged with its own writes only.
func TestTheHarnesssEvictionsAreNotTheContendersWrites(t *testing.T) {
	start := window{writes: map[writeKey]int64{}, marks: 5, evictions: map[int]int64{201: 1}}
	end := window{writes: map[writeKey]int64{
		{"POST", "pods/eviction", 201}: 20, {"POST", "pods/eviction", 429}: 3, {"POST", "pods", 201}: 20,
	}, marks: 5 + 20, evictions: map[int]int64{201: 1 + 20, 429: 3}}
	var r Result
	fill(&r, scenario{}, start, end, end, nil)
	if diff := cmp.Diff(map[string]int64{"POST pods": 20}, r.WritesBy); diff != "" || r.APIWrites != 20 || r.APIWriteErrors != 0 {
		t.Errorf("writes %d (%d errors), by (-want +got):\n%s", r.APIWrites, r.APIWriteErrors, diff)
	}
	if r.RawWrites["POST pods/eviction 201"] != 20 || r.PodDeleteMarks != 20 {
		t.Errorf("raw writes %v, marks %d: the API server's counts should stay as they are", r.RawWrites, r.PodDeleteMarks)
	}
	// Without a drain the evictions are the contender's (an extended
	// set's own removals).
	fill(&r, scenario{}, window{}, window{writes: end.writes, marks: 20}, window{}, nil)
	if r.APIWrites != 63 {
		t.Errorf("writes %d, want 63: 23 evictions, 20 creates, 20 deletions", r.APIWrites)
	}
	if g, ref, other := evictionsOf(start.evictions, map[int]int64{201: 21, 429: 3, 404: 1}); g != 20 || ref != 3 || other != 1 {
		t.Errorf("evictionsOf = %d, %d, %d; want 20 granted, 3 refused, 1 other", g, ref, other)
	}
}

func TestTheDrainScenarioIsLeftOutOfABareRunAndNeedsAFreeNode(t *testing.T) {
	cfg := NewConfig()
	if slices.Contains(cfg.Scenarios, ScenarioNodeDrain) || len(cfg.Scenarios) != len(ScenarioNames)-1 {
		t.Errorf("default scenarios %v, want every one but %s", cfg.Scenarios, ScenarioNodeDrain)
	}
	cfg.Binary, cfg.Commands, cfg.Contenders = "/bin/true", map[string]Command{ContenderFloor: {Binary: "/bin/true"}}, []string{ContenderFloor}
	cfg.Scenarios = []string{ScenarioNodeDrain}
	if err := cfg.Validate(); err != nil {
		t.Errorf("4 nodes for sets of 3: %v", err)
	}
	cfg.Sizes.SetReplicas = 4
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "node-drain needs at least 5 nodes (--nodes)") {
		t.Errorf("4 nodes for sets of 4: %v, want a refusal", err)
	}
}

func TestADrainRowSaysWhatTheSetsKeptAndWhatTheDrainEvicted(t *testing.T) {
	rows := []Result{
		{Scenario: ScenarioNodeDrain, Contender: ContenderBuiltin, QPS: 20, Burst: 30, Size: "20×3", Seconds: 9.5,
			Drain: &Drain{Node: "ordinal-node-0", FewestReady: 2, Evicted: 20}},
		{Scenario: ScenarioNodeDrain, Contender: ContenderOrdinalExtended, QPS: 20, Burst: 30, Size: "20×3", Seconds: 12,
			Drain: &Drain{Node: "ordinal-node-0", FewestReady: 2, MovedSeconds: 11.5}},
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| fewest Ready members of one set 2; the drain evicted 20 (0 refused) |",
		"| fewest Ready members of one set 2; the drain evicted 0 (0 refused); moved off the cordoned node in 11.5s |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
