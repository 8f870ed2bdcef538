package setops

import (
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/setkind"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestEveryKindHasItsOwnDoor(t *testing.T) {
	if len(doors) != len(setkind.All) {
		t.Errorf("%d doors for %d kinds", len(doors), len(setkind.All))
	}
	for _, k := range setkind.All {
		d, ok := doors[k]
		if !ok {
			t.Errorf("%s has no door", k)
			continue
		}
		if d.kind() != k {
			t.Errorf("the door of %s says it is %s's", k, d.kind())
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "no door for kind any") {
			t.Errorf("doorFor(Any) recovered %v, want a panic naming the kind", r)
		}
	}()
	doorFor(setkind.Any)
}

// kindWants is what each operation does to a set of one kind.
type kindWants struct {
	// resource is where every write goes.
	resource string
	// pause, restart and undo are the types of the patches they send.
	pause, restart, undo types.PatchType
	arg                  string
	// choosable says whether pods may be chosen to go.
	choosable bool
	// extended says whether the plan and the status show the extended
	// kind's part.
	extended bool
	// statusClaims says whether the status view reads the claims.
	statusClaims bool
}

// Each operation, run on a set of each kind through fake clients, reads
// and writes that kind's API in that kind's way. A kind in setkind.All
// without a row here fails, so a kind cannot be added without saying
// what every operation does to it.
func TestEveryOperationGoesThroughTheDoorOfItsKind(t *testing.T) {
	wants := map[setkind.Kind]kindWants{
		setkind.AppsV1: {resource: "statefulsets.apps", pause: types.MergePatchType, restart: types.StrategicMergePatchType,
			undo: types.StrategicMergePatchType, arg: "web"},
		setkind.Extended: {resource: "statefulsets.apps.ordinal.dev", pause: types.MergePatchType, restart: types.MergePatchType,
			undo: types.JSONPatchType, arg: "osts/web", choosable: true, extended: true, statusClaims: true},
	}
	for _, k := range setkind.All {
		t.Run(k.String(), func(t *testing.T) {
			want, ok := wants[k]
			if !ok {
				t.Fatalf("no expectations for kind %s: add its row", k)
			}
			f := newKindFixture(t, k)
			ctx := context.Background()
			target, err := Find(ctx, f.kube, f.ext, testgen.Namespace, Ref{Kind: k, Name: "web"})
			if err != nil {
				t.Fatal(err)
			}
			if target.Kind() != k || target.Arg() != want.arg || target.Ref() != k.Resource()+"/web" {
				t.Errorf("the target is %s, named %q and %q", target.Kind(), target.Arg(), target.Ref())
			}
			writes := []struct {
				op   string
				run  func() (string, error)
				want types.PatchType
			}{
				{"pause", func() (string, error) { return target.Pause(ctx) }, want.pause},
				{"resume", func() (string, error) { return target.Resume(ctx) }, want.pause},
				{"undo", func() (string, error) { return target.Undo(ctx, 0) }, want.undo},
				{"restart", func() (string, error) { return target.Restart(ctx, testgen.Epoch) }, want.restart},
			}
			for _, w := range writes {
				before := len(f.writes())
				if msg, err := w.run(); err != nil {
					t.Fatalf("%s: %v", w.op, err)
				} else if got := f.writes()[before:]; len(got) != 1 || got[0] != want.resource+" "+string(w.want) {
					t.Errorf("%s (%q) wrote %q, want one %s patch of %s", w.op, msg, got, w.want, want.resource)
				}
				if err := target.Refresh(ctx); err != nil {
					t.Fatalf("refresh after %s: %v", w.op, err)
				}
			}
			_, _, err = target.PlanRemoval(ctx, []int32{1})
			if choosable := !errors.Is(err, ErrNeedsExtended); choosable != want.choosable || (choosable && err != nil) {
				t.Errorf("choosing a pod to go: %v; want choosable %v", err, want.choosable)
			}
			obs, err := target.Observe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			report, err := PlanReport(obs, testgen.Epoch)
			if err != nil {
				t.Fatal(err)
			}
			if got := Snapshot(obs, ""); (report.Extended != nil) != want.extended || (got.Extended != nil) != want.extended {
				t.Errorf("the plan's extended part %v and the status's %v, want both %v", report.Extended != nil, got.Extended != nil, want.extended)
			}
			before := len(f.kube.Actions())
			snap, err := target.StatusSnapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			claims := false
			for _, a := range f.kube.Actions()[before:] {
				claims = claims || a.Matches("list", "persistentvolumeclaims")
			}
			if (snap.Extended != nil) != want.extended || claims != want.statusClaims {
				t.Errorf("the status view: extended part %v, claims read %v; want %v and %v", snap.Extended != nil, claims, want.extended, want.statusClaims)
			}
		})
	}
}

// kindFixture is a set "web" of one kind with a claim template and three
// pods at the first of its two revisions, behind fake clients of both
// kinds; the extended set updates its claims in place.
type kindFixture struct {
	kube *k8sfake.Clientset
	dyn  *dynamicfake.FakeDynamicClient
	ext  *ostsclient.Client
}

func newKindFixture(t *testing.T, k setkind.Kind) kindFixture {
	t.Helper()
	old := testgen.StatefulSet("web", testgen.Replicas(3), testgen.ClaimTemplates("www"))
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.ClaimTemplates("www"), testgen.Image("registry.example/app:2"))
	f := kindFixture{dyn: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{v1alpha1.Resource: "StatefulSetList"})}
	f.ext = ostsclient.New(f.dyn)
	var objs []runtime.Object
	switch k {
	case setkind.AppsV1:
		objs = append(objs, set)
	case setkind.Extended:
		ext, err := testgen.Extended(set)
		if err != nil {
			t.Fatal(err)
		}
		ext.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
		u, err := ostsclient.ToUnstructured(ext)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.dyn.Tracker().Add(u); err != nil {
			t.Fatal(err)
		}
		extOld, err := testgen.Extended(old)
		if err != nil {
			t.Fatal(err)
		}
		set, old = osts.View(ext), osts.View(extOld)
	default:
		t.Fatalf("no fixture for kind %s: add one", k)
	}
	r1, r2 := testgen.RevisionOf(old, 1), testgen.RevisionOf(set, 2)
	objs = append(objs, r1, r2)
	for ord := range int32(3) {
		objs = append(objs, testgen.Pod(set, ord, testgen.At(r1)))
	}
	f.kube = k8sfake.NewClientset(objs...)
	return f
}

// writes are the patches either client sent to sets, oldest first within
// each client, as "<resource>.<group> <patch type>".
func (f kindFixture) writes() []string {
	var out []string
	for _, a := range append(f.kube.Actions(), f.dyn.Actions()...) {
		if p, ok := a.(clienttesting.PatchAction); ok && a.GetResource().Resource == "statefulsets" {
			out = append(out, a.GetResource().GroupResource().String()+" "+string(p.GetPatchType()))
		}
	}
	return out
}
