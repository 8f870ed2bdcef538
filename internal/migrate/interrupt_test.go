package migrate

import (
	"context"
	"errors"
	"io"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// fakeSets is one kind's sets, by name, whose calls can fail before or
// after taking effect, as a request cut short by Ctrl-C can.
type fakeSets struct {
	mu    sync.Mutex
	items map[string]setState
	// failAfter makes the named call ("delete", "create", "carry")
	// take effect and then return the error; failBefore return it
	// without taking effect.
	failAfter, failBefore map[string]error
	// stateErr fails every read once a call has failed.
	stateErr error
	failed   bool
	// keepOnDelete makes a delete leave the set, being deleted, as the
	// garbage collector does until the dependents are released.
	keepOnDelete bool
}

func newFakeSets() *fakeSets {
	return &fakeSets{items: map[string]setState{}, failAfter: map[string]error{}, failBefore: map[string]error{}}
}

var gr = schema.GroupResource{Group: "apps", Resource: "statefulsets"}

func (f *fakeSets) fail(call string, effect func()) error {
	if err := f.failBefore[call]; err != nil {
		f.failed = true
		return err
	}
	effect()
	if err := f.failAfter[call]; err != nil {
		f.failed = true
		return err
	}
	return nil
}

func (f *fakeSets) state(_ context.Context, name string) (setState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed && f.stateErr != nil {
		return setState{}, f.stateErr
	}
	st, ok := f.items[name]
	if !ok {
		return setState{}, apierrors.NewNotFound(gr, name)
	}
	return st, nil
}

func (f *fakeSets) create(_ context.Context, _ any, _ bool) (types.UID, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return "new", f.fail("create", func() {
		f.items["web"] = setState{UID: "new", Generation: 1, ObservedGeneration: 1, CurrentRevision: "web-1", UpdateRevision: "web-1"}
	})
}

func (f *fakeSets) orphanDelete(_ context.Context, name string, _ types.UID, rv string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if st, ok := f.items[name]; ok && st.ResourceVersion != "" && st.ResourceVersion != rv {
		return apierrors.NewConflict(gr, name, errors.New("the object has been modified"))
	}
	return f.fail("delete", func() {
		if f.keepOnDelete {
			st := f.items[name]
			st.Deleting = true
			f.items[name] = st
			return
		}
		delete(f.items, name)
	})
}

func (f *fakeSets) carryStatus(_ context.Context, _, _ string, _ *int32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fail("carry", func() {})
}

// errCut is what a request cut short by Ctrl-C returns.
var errCut error = &url.Error{Op: "Delete", URL: "https://127.0.0.1:6443/...", Err: context.Canceled}

// Wherever a migration is interrupted, it says what it did: never
// "nothing was changed" once the old set is gone, and the way to finish
// from where it stopped.
func TestAnInterruptedMigrationSaysWhatItDidAtEveryStep(t *testing.T) {
	tests := []struct {
		name    string
		breakIt func(from, to *fakeSets)
		cancel  bool // the context is cancelled during the waits
		want    []string
		not     []string
	}{
		{"the delete is cut short after it took effect", func(from, _ *fakeSets) { from.failAfter["delete"] = errCut },
			false, []string{"context canceled; but it is deleted", "state:     statefulset.apps/web is deleted", "to finish: kubectl create -n shop -f /b/next.osts.yaml"},
			[]string{"; nothing was changed"}},
		{"the delete is cut short before it took effect", func(from, _ *fakeSets) { from.failBefore["delete"] = errCut },
			false, []string{"deleting statefulset.apps/web: Delete", "context canceled; nothing was changed"}, []string{"state:"}},
		{"the delete is refused on a changed set", func(from, _ *fakeSets) {
			from.failBefore["delete"] = apierrors.NewConflict(gr, "web", errors.New("precondition failed"))
		}, false, []string{"statefulset.apps/web changed since it was read", "nothing was changed: run the migration again"}, nil},
		{"the delete is cut short and the set cannot be read", func(from, _ *fakeSets) {
			from.failAfter["delete"], from.stateErr = errCut, errors.New("connection refused")
		}, false, []string{"whether it is deleted could not be read: connection refused",
			"state:     unknown: kubectl get -n shop statefulset.apps/web tells",
			"to finish: if it is gone: kubectl create -n shop -f /b/next.osts.yaml"}, []string{"; nothing was changed"}},
		{"the wait for the garbage collector is interrupted", nil, true,
			[]string{"interrupted while waiting for the garbage collector", "state:     statefulset.apps/web is deleted"}, nil},
		{"the create is cut short after it took effect", func(_, to *fakeSets) { to.failAfter["create"] = errCut }, false,
			[]string{"context canceled; but it is created", "state:     statefulset.apps.ordinal.dev/web exists",
				`to finish: kubectl patch -n shop statefulset.apps.ordinal.dev/web --subresource=status --type=merge -p '{"status":{"collisionCount":2,"currentRevision":"web-1"}}', then`,
				"to undo:   kubectl delete -n shop statefulset.apps.ordinal.dev/web --cascade=orphan, then kubectl create -n shop -f /b/backup.sts.yaml"}, nil},
		{"the create is cut short before it took effect", func(_, to *fakeSets) { to.failBefore["create"] = errCut }, false,
			[]string{"creating statefulset.apps.ordinal.dev/web: Delete", "state:     statefulset.apps/web is deleted",
				"to finish: kubectl create -n shop -f /b/next.osts.yaml"}, []string{"; nothing was changed"}},
		{"the create is cut short and the new set cannot be read", func(_, to *fakeSets) {
			to.failAfter["create"], to.stateErr = errCut, errors.New("connection refused")
		}, false, []string{"whether it is created could not be read", "kubectl get -n shop statefulset.apps.ordinal.dev/web tells",
			"to finish: if it is not there: kubectl create -n shop -f /b/next.osts.yaml (its controller adopts them); if it is: kubectl patch"}, nil},
		{"the status carry is cut short", func(_, to *fakeSets) { to.failAfter["carry"] = errCut }, false,
			[]string{"writing the status of statefulset.apps.ordinal.dev/web", "to finish: kubectl patch -n shop"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := newFakeSets(), newFakeSets()
			from.items["web"] = setState{UID: "old", Generation: 1, ObservedGeneration: 1, CurrentRevision: "web-1", UpdateRevision: "web-1"}
			if tt.breakIt != nil {
				tt.breakIt(from, to)
			}
			p := &Plan{From: setops.AppsV1, To: setops.ExtendedKind, Namespace: "shop", Name: "web",
				CurrentRevision: "web-1", UpdateRevision: "web-1", CollisionCount: ptrTo[int32](2),
				uid: "old", resourceVersion: "7", selector: labels.Everything(),
				original: &appsv1.StatefulSet{}, next: &v1alpha1.StatefulSet{}, from: from, to: to}
			ctx := context.Background()
			if tt.cancel {
				// The old set stays, being deleted, so the wait goes on
				// until the interruption.
				from.keepOnDelete = true
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				time.AfterFunc(300*time.Millisecond, cancel)
			}
			err := p.runWithFiles(ctx, Clients{Kube: fake.NewClientset()}, RunOptions{Timeout: 5 * time.Second, Out: io.Discard},
				Files{Backup: "/b/backup.sts.yaml", Next: "/b/next.osts.yaml"})
			if err == nil {
				t.Fatal("the migration did not fail")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to say %q", err, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("error:\n%v\nsays %q", err, n)
				}
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// The old set's controller may write its status between the migration's
// read and its delete: the delete goes ahead on the new resourceVersion
// as long as nothing the migration carries changed; a changed spec,
// label or rollout state still stops it with nothing changed.
func TestADeleteRefusedForAStatusWriteIsTriedAgain(t *testing.T) {
	read := setState{UID: "old", ResourceVersion: "7", Generation: 1, ObservedGeneration: 1, CurrentRevision: "web-1", UpdateRevision: "web-1",
		Labels: map[string]string{"app": "web"}}
	tests := []struct {
		name    string
		now     func(setState) setState
		deleted bool
	}{
		{"a status write", func(s setState) setState { s.ResourceVersion, s.ObservedGeneration = "8", 2; return s }, true},
		{"a spec change", func(s setState) setState { s.ResourceVersion, s.Generation = "8", 2; return s }, false},
		{"a label change", func(s setState) setState { s.ResourceVersion, s.Labels = "8", map[string]string{"app": "db"}; return s }, false},
		{"a new update revision", func(s setState) setState { s.ResourceVersion, s.UpdateRevision = "8", "web-2"; return s }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := newFakeSets()
			from.items["web"] = tt.now(read)
			p := &Plan{Name: "web", uid: "old", resourceVersion: "7", read: read, from: from}
			err := p.orphanDelete(context.Background())
			_, still := from.items["web"]
			if tt.deleted && (err != nil || still) {
				t.Errorf("delete: %v, set still there %v; want it deleted", err, still)
			}
			if !tt.deleted && (!apierrors.IsConflict(err) || !still) {
				t.Errorf("delete: %v, set still there %v; want a conflict and the set kept", err, still)
			}
		})
	}
}
