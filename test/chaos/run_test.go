package chaos

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/internal/invariant"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// run is one seeded scenario in its own namespace.
type run struct {
	t        *testing.T
	seed     int64
	rng      *rand.Rand
	client   kubernetes.Interface
	ext      *ostsclient.Client
	ns       string
	dir      string
	watcher  *invariant.Watcher
	markers  *invariant.Markers
	replicas []*replica // every controller process of the run, for its logs
	charge   charge     // the controller in charge of the sets
	sets     []*chaosSet
	faults   int
	logMu    sync.Mutex
	log      []string
	began    time.Time
	stopped  time.Time
	nodeLoss sync.WaitGroup
	nodeFail sync.WaitGroup // a failed node's restore (nodefail_test.go)
	// shapes are the node shapes the run meets (nodeshapes_test.go), with
	// their own random stream.
	shapes *nodeShapes
	// all turns every extended feature on in the extended sets the run
	// creates (features_test.go).
	all bool
	// config are the run's config edits (config_test.go), with their own
	// random stream.
	config *configEdits
	failed bool
}

// newRun starts a run in a new namespace of the test plane; under -short,
// which starts no plane, it skips the test.
func newRun(ctx context.Context, t *testing.T, seed int64) (*run, error) {
	if testing.Short() {
		t.Skip("needs the test plane, which -short does not start")
	}
	hookEndpoint.calm.Store(false)
	cfg, err := restConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 200, 400
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ext, err := ostsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: fmt.Sprintf("chaos-%d-", seed)}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating namespace: %w", err)
	}
	dir := filepath.Join(os.TempDir(), "ordinal-chaos", ns.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &run{t: t, seed: seed, rng: rand.New(rand.NewSource(seed)), client: client, ext: ext, ns: ns.Name, dir: dir,
		began: time.Now(), shapes: newNodeShapes(seed, *flagOps), config: newConfigEdits(seed, *flagOps)}
	if err := ensureLocalClass(ctx, r); err != nil {
		return nil, fmt.Errorf("creating StorageClass %s: %w", localClass, err)
	}
	r.watcher = invariant.Watch(context.Background(), r.clients(), r.ns, invariant.Options{Nodes: true, Evictions: true, Quarantine: quarantine})
	r.watcher.WaitSynced()
	r.markers = invariant.NewMarkers(client, r.ns)
	return r, nil
}

// clients are what the invariant checker reads through.
func (r *run) clients() invariant.Clients {
	return invariant.Clients{Kube: r.client, Extended: r.ext}
}

func (r *run) logf(format string, args ...any) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	r.log = append(r.log, fmt.Sprintf("%6.1fs ", time.Since(r.began).Seconds())+fmt.Sprintf(format, args...))
}

// execute creates the sets, starts the controllers with faults, applies
// the operations, fixes what they broke, stops the faults and waits for
// convergence.
func (r *run) execute(ctx context.Context) result {
	res := result{seed: r.seed}
	nSets := 1 + r.rng.Intn(2)
	for i := 0; i < nSets; i++ {
		if err := r.createSet(ctx, i); err != nil {
			res.why = "creating set: " + err.Error()
			return res
		}
	}
	r.startControllers()
	r.chaos(ctx)
	// A failed node comes back before the user's last fixes: a rollout
	// its pods held up may have failed meanwhile (a hold of onFailure
	// Pause or Rollback), and the fixes end or release it.
	r.nodeFail.Wait()
	r.shapes.wg.Wait()
	r.fixAll(ctx)
	r.stopFaults(ctx)
	res.converged, res.why = r.converge(ctx)
	res.convergedIn = time.Since(r.stopped)
	r.watcher.Stop()
	res.violations = r.watcher.Violations()
	if res.converged {
		res.violations = append(res.violations, r.finalChecks(ctx)...)
	}
	if vs, err := r.markers.Verify(ctx); err == nil {
		res.violations = append(res.violations, vs...)
	}
	res.faults, res.handOvers = r.faults, r.charge.handOvers
	for _, rep := range r.replicas {
		res.faults += rep.faults()
	}
	res.violations = append(res.violations, r.secretsLogged()...)
	res.log = r.log
	res.took = time.Since(r.began)
	r.failed = !res.converged || len(res.violations) > 0
	if r.failed {
		r.saveHistory()
		res.log = append(res.log, "history, events and controller logs kept in "+r.dir)
	}
	return res
}

// startControllers runs one or two Ordinal replicas; most runs inject API
// faults. Ordinal runs the same way whenever it takes charge again after
// a hand-over.
func (r *run) startControllers() {
	r.charge.replicas = 1 + r.rng.Intn(2)
	if r.rng.Float64() < 0.75 {
		r.charge.faultRate = *flagFaultRate
	}
	r.takeCharge(invariant.Ordinal)
	r.logf("start %d controller replica(s), API fault rate %g", r.charge.replicas, r.charge.faultRate)
}

// stopFaults waits for any node loss to heal, ends the controller in
// charge (SIGTERM: Ordinal's replicas release the lease) and starts one
// clean Ordinal replica, which takes over from the built-in controller if
// that was in charge.
func (r *run) stopFaults(ctx context.Context) {
	r.nodeLoss.Wait()
	from := r.charge.who
	r.stopCharge(false)
	if from != invariant.Ordinal {
		if err := r.watcher.HandOver(ctx, invariant.Ordinal); err != nil {
			r.t.Errorf("recording the hand-over: %v", err)
		}
	}
	clean := startReplica(r.dir, "clean", r.ns, 0, 0)
	r.replicas = append(r.replicas, clean)
	r.charge.who, r.charge.procs = invariant.Ordinal, []*replica{clean}
	r.stopped = time.Now()
	r.logf("faults stopped; one clean controller (after %s)", from)
}

func (r *run) cleanup() {
	r.watcher.Stop()
	for _, rep := range r.replicas {
		rep.stop()
	}
	_ = r.client.CoreV1().Namespaces().Delete(context.Background(), r.ns, metav1.DeleteOptions{})
	if !r.failed {
		_ = os.RemoveAll(r.dir)
	}
}

// saveHistory writes the observed history next to the controller logs,
// and the namespace's events: the history shows what changed, the events
// which controller did it (their reporting component), since a delete
// leaves no field manager on the object.
func (r *run) saveHistory() {
	f, err := os.Create(filepath.Join(r.dir, "history.txt"))
	if err != nil {
		return
	}
	defer f.Close()
	_ = r.watcher.WriteHistory(f)
	r.saveEvents()
	r.saveObjects()
}

// saveObjects writes the namespace's sets, pods and claims, and the
// volumes bound to its claims, as they are at the end, into objects.yaml:
// the history names objects and their revisions, not every field a
// convergence check reads (a claim's request and capacity, say).
func (r *run) saveObjects() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := os.Create(filepath.Join(r.dir, "objects.yaml"))
	if err != nil {
		return
	}
	defer f.Close()
	opts := metav1.ListOptions{}
	lists := []struct {
		kind string
		list func() (runtime.Object, error)
	}{
		{"StatefulSet.apps.ordinal.dev", func() (runtime.Object, error) { return r.ext.StatefulSets(r.ns).List(ctx, opts) }},
		{"StatefulSet", func() (runtime.Object, error) { return r.client.AppsV1().StatefulSets(r.ns).List(ctx, opts) }},
		{"Pod", func() (runtime.Object, error) { return r.client.CoreV1().Pods(r.ns).List(ctx, opts) }},
		{"PersistentVolumeClaim", func() (runtime.Object, error) { return r.client.CoreV1().PersistentVolumeClaims(r.ns).List(ctx, opts) }},
		{"PersistentVolume", func() (runtime.Object, error) { return r.client.CoreV1().PersistentVolumes().List(ctx, opts) }},
	}
	for _, l := range lists {
		list, err := l.list()
		if err != nil {
			fmt.Fprintf(f, "# %s list: %v\n", l.kind, err)
			continue
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			fmt.Fprintf(f, "# %s list: %v\n", l.kind, err)
			continue
		}
		for _, obj := range items {
			if pv, ok := obj.(*corev1.PersistentVolume); ok && (pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Namespace != r.ns) {
				continue // another run's, or nobody's
			}
			acc, err := meta.Accessor(obj)
			if err != nil {
				continue
			}
			acc.SetManagedFields(nil)
			out, err := yaml.Marshal(obj)
			if err != nil {
				fmt.Fprintf(f, "# %s %s: %v\n", l.kind, acc.GetName(), err)
				continue
			}
			fmt.Fprintf(f, "# %s %s\n%s---\n", l.kind, acc.GetName(), out)
		}
	}
}

// saveEvents writes the namespace's events into events.txt, oldest first.
func (r *run) saveEvents() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := r.client.CoreV1().Events(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	f, err := os.Create(filepath.Join(r.dir, "events.txt"))
	if err != nil {
		return
	}
	defer f.Close()
	evs := list.Items
	at := func(e corev1.Event) time.Time {
		if !e.EventTime.IsZero() {
			return e.EventTime.Time
		}
		return e.LastTimestamp.Time
	}
	sort.SliceStable(evs, func(i, j int) bool { return at(evs[i]).Before(at(evs[j])) })
	for _, e := range evs {
		by := e.Source.Component
		if by == "" {
			by = e.ReportingController
		}
		fmt.Fprintf(f, "%s %s %s/%s %s %s x%d: %s\n", at(e).Format("15:04:05.000"), by, e.InvolvedObject.Kind, e.InvolvedObject.Name,
			e.Type, e.Reason, max(e.Count, 1), e.Message)
	}
}
