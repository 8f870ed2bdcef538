package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/klog/v2"

	"github.com/go-logr/logr/funcr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

func writeSecret(t *testing.T, ns, value string) {
	t.Helper()
	secrets := client.CoreV1().Secrets(ns)
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns}, Data: map[string][]byte{"password": []byte(value)}}
	cur, err := secrets.Get(context.Background(), "db", metav1.GetOptions{})
	if err == nil {
		cur.Data = s.Data
		_, err = secrets.Update(context.Background(), cur, metav1.UpdateOptions{})
	} else {
		_, err = secrets.Create(context.Background(), s, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatalf("writing Secret db: %v", err)
	}
}

// notIn fails the test for every object whose JSON holds one of values,
// as written or base64-encoded.
func notIn(t *testing.T, what string, objects any, values ...string) {
	t.Helper()
	raw, err := json.Marshal(objects)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
			if bytes.Contains(raw, []byte(form)) {
				t.Errorf("%s hold a Secret's value (%q)", what, form)
			}
		}
	}
}

// controllerWrites records what a controller sends the API server to
// write, except to Secrets, and what it logs.
type controllerWrites struct {
	mu     sync.Mutex
	bodies []string // "METHOD path?query body"
	// unread counts the writes whose body could not be read again.
	unread int
	log    bytes.Buffer
}

func (w *controllerWrites) record(r *http.Request) error {
	if r.Method == http.MethodGet || strings.Contains(r.URL.Path, "/secrets") {
		return nil
	}
	var body []byte
	if r.Body != nil && r.GetBody == nil {
		w.mu.Lock()
		w.unread++
		w.mu.Unlock()
	}
	if r.GetBody != nil {
		rc, err := r.GetBody()
		if err != nil {
			return err
		}
		defer rc.Close()
		if body, err = io.ReadAll(rc); err != nil {
			return err
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bodies = append(w.bodies, r.Method+" "+r.URL.RequestURI()+" "+string(body))
	return nil
}

func (w *controllerWrites) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.Write(p)
}

// startOrdinalRecording runs Ordinal's controller for ns, logging at V(4),
// until the test ends, and records its writes and its log.
func startOrdinalRecording(t *testing.T, ns string) *controllerWrites {
	t.Helper()
	w := &controllerWrites{}
	logger := funcr.New(func(prefix, args string) { fmt.Fprintln(w, prefix, args) }, funcr.Options{Verbosity: 4})
	t.Cleanup(runOrdinalControllerThrough(t, klog.NewContext(context.Background(), logger), ns, controller.Options{},
		func(rt http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if err := w.record(r); err != nil {
					return nil, err
				}
				return rt.RoundTrip(r)
			})
		}))
	return w
}

// A Secret the set names is part of its revisions: a change of its value
// rolls out, history shows the key and its hashes, and the value appears
// in no object the controller writes but the Secret's copies: not in what
// it sends the API server, not in its log, not in any object of the
// namespace.
func TestASecretRollsOutAndItsValueAppearsNowhereElse(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	writes := startOrdinalRecording(t, ns)
	playConfiguredApp(t, ns)
	v1, v2 := "pw-"+rand.String(24), "pw-"+rand.String(24)
	writeConfigMap(t, ns, map[string]string{"valid": "true", "v": "1"})
	writeSecret(t, ns, v1)
	set := configuredSet(t, ns)
	set.Spec.ConfigRevisions.Secrets = []string{"db"}
	set.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "PASSWORD", ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}}}
	createExtended(t, set)
	first := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	writeSecret(t, ns, v2)
	waitExtended(t, ns, 2*time.Minute, "the Secret rolled out", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == first.Status.UpdateRevision {
			return fmt.Errorf("no new revision yet")
		}
		return extendedSettled(s)
	})
	for _, p := range listPods(t, ns) {
		name := p.Spec.Containers[0].Env[0].ValueFrom.SecretKeyRef.Name
		s, err := client.CoreV1().Secrets(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil || !configrev.IsCopyFor(s.Labels, setName) || string(s.Data["password"]) != v2 {
			t.Errorf("pod %s reads Secret %s (%v), want the set's copy of the new value", p.Name, name, err)
		}
	}

	ctx := context.Background()
	sets, err := extendedSets(t, ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notIn(t, "sets", sets, v1, v2)
	revs, err := client.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notIn(t, "revisions", revs, v1, v2)
	events, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notIn(t, "events", events, v1, v2)
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notIn(t, "pods", pods, v1, v2)
	cms, err := client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notIn(t, "ConfigMaps", cms, v1, v2)

	writes.mu.Lock()
	notIn(t, "the controller's writes", writes.bodies, v1, v2)
	notIn(t, "the controller's log", writes.log.String(), v1, v2)
	if writes.unread > 0 {
		t.Errorf("%d of the controller's writes had a body that could not be read", writes.unread)
	}
	if len(writes.bodies) == 0 || writes.log.Len() == 0 {
		t.Errorf("recorded %d writes and %d bytes of log of the controller, want some of each", len(writes.bodies), writes.log.Len())
	}
	writes.mu.Unlock()
	everyObjectOfTheNamespace(t, ns, v1, v2)

	target, err := setops.LoadExtended(ctx, client, extendedClient(t), ns, setName)
	if err != nil {
		t.Fatal(err)
	}
	all, err := target.Revisions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := target.ConfigDiff(ctx, all, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	configrev.Render(&out, changes, func(w io.Writer, a, b string) { fmt.Fprintf(w, "%s => %s\n", a, b) })
	notIn(t, "the history's diff", out.String(), v1, v2)
	if len(changes) != 1 || changes[0].Kind != configrev.Secret || len(changes[0].Keys) != 1 || changes[0].Keys[0].Key != "password" || changes[0].Keys[0].Change != "changed" {
		t.Errorf("config diff of revisions 1 and 2:\n%s", out.String())
	}
}

// everyObjectOfTheNamespace fails the test for each object in ns, of every
// resource the API server lists there but Secrets, that holds one of
// values.
func everyObjectOfTheNamespace(t *testing.T, ns string, values ...string) {
	t.Helper()
	lists, err := client.Discovery().ServerPreferredNamespacedResources()
	if err != nil {
		t.Fatalf("discovering the namespaced resources: %v", err)
	}
	dyn := dynamic.NewForConfigOrDie(restConfig(50, 100))
	listed := 0
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			if r.Name == "secrets" || strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			objs, err := dyn.Resource(gv.WithResource(r.Name)).Namespace(ns).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Errorf("listing %s in %s: %v", r.Name, ns, err)
				continue
			}
			listed++
			notIn(t, gv.WithResource(r.Name).String(), objs, values...)
		}
	}
	if listed < 10 {
		t.Errorf("listed %d namespaced resources, want every one the API server serves", listed)
	}
}
