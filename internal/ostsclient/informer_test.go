package ostsclient

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// recorder keeps what an informer's handlers were given.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(what string, obj any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj, what = tomb.Obj, what+" (tombstone)"
	}
	if set, ok := obj.(*v1alpha1.StatefulSet); ok {
		r.events = append(r.events, what+" "+set.Namespace+"/"+set.Name)
	} else {
		r.events = append(r.events, what+" of an untyped object")
	}
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func TestTheInformerCachesTypedSetsOfItsNamespaceOnly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := New(fakeDynamic())
	for _, s := range []*v1alpha1.StatefulSet{fullSet("a", "web"), fullSet("b", "web")} {
		if _, err := client.StatefulSets(s.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	informer, err := NewInformer(client.Dynamic(), "a", 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { rec.add("add", obj) },
		UpdateFunc: func(_, obj any) { rec.add("update", obj) },
		DeleteFunc: func(obj any) { rec.add("delete", obj) },
	}); err != nil {
		t.Fatal(err)
	}
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	lister := NewLister(informer.GetIndexer())

	got, err := lister.Get("a", "web")
	if err != nil {
		t.Fatal(err)
	}
	want := fullSet("a", "web")
	want.APIVersion, want.Kind = "apps.ordinal.dev/v1alpha1", "StatefulSet"
	if diff := cmp.Diff(want, got, quantities); diff != "" {
		t.Errorf("cached set (-want +got):\n%s", diff)
	}
	if _, err := lister.Get("b", "web"); !apierrors.IsNotFound(err) {
		t.Errorf("a set of namespace b: %v, want NotFound from an informer scoped to a", err)
	}

	if _, err := client.StatefulSets("a").Create(ctx, fullSet("a", "db"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.StatefulSets("b").Create(ctx, fullSet("b", "db"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.StatefulSets("a").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	wantEvents := []string{"add a/web", "add a/db", "delete a/web"}
	waitEvents(t, rec, wantEvents)

	sets, err := lister.List("", labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 1 || sets[0].Name != "db" || sets[0].Namespace != "a" {
		t.Errorf("listed %v, want only a/db", names(sets))
	}
	selected, err := lister.List("a", labels.SelectorFromSet(labels.Set{"app": "web"}))
	if err != nil || len(selected) != 0 {
		t.Errorf("app=web in a: %v, %v; want none (web was deleted)", names(selected), err)
	}
}

func waitEvents(t *testing.T, rec *recorder, want []string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return len(rec.seen()) >= len(want), nil
	})
	if diff := cmp.Diff(want, rec.seen()); err != nil || diff != "" {
		t.Errorf("handlers saw (-want +got):\n%s", diff)
	}
}

func names(sets []*v1alpha1.StatefulSet) []string {
	var out []string
	for _, s := range sets {
		out = append(out, s.Namespace+"/"+s.Name)
	}
	sort.Strings(out)
	return out
}

func TestTransformConvertsTombstonesAndIsIdempotent(t *testing.T) {
	u, err := ToUnstructured(fullSet("a", "web"))
	if err != nil {
		t.Fatal(err)
	}
	once, err := Transform(cache.DeletedFinalStateUnknown{Key: "a/web", Obj: u})
	if err != nil {
		t.Fatal(err)
	}
	tomb, ok := once.(cache.DeletedFinalStateUnknown)
	if !ok {
		t.Fatalf("a tombstone became a %T", once)
	}
	if _, ok := tomb.Obj.(*v1alpha1.StatefulSet); !ok {
		t.Errorf("the tombstone holds a %T, want *v1alpha1.StatefulSet", tomb.Obj)
	}
	typed, err := Transform(u)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Transform(typed)
	if err != nil || again != typed {
		t.Errorf("transforming a typed set again gave %v, %v; want the same set", again, err)
	}
}
