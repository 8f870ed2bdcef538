package controller

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func orphan(p *corev1.Pod) *corev1.Pod {
	p.OwnerReferences = nil
	return p
}

func TestClaimPodsKeepsReleasesAndAdoptsAsUpstreamDoes(t *testing.T) {
	web := testgen.StatefulSet("web", testgen.Replicas(4))
	other := testgen.StatefulSet("other")
	owned := testgen.Pod(web, 0)
	stray := testgen.Pod(web, 1, testgen.PodLabel("app", "elsewhere"))
	adoptable := orphan(testgen.Pod(web, 2))
	foreign := testgen.Pod(other, 0, testgen.Named("web-3"))
	misnamed := orphan(testgen.Pod(web, 0, testgen.Named("webapp-0")))
	client := fake.NewClientset(web, owned, stray, adoptable, foreign, misnamed)
	selector := labels.SelectorFromSet(web.Spec.Selector.MatchLabels)

	got, err := claimPods(context.Background(), client, apiRecheck(client), web, selector, []*corev1.Pod{owned, stray, adoptable, foreign, misnamed})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"web-0", "web-2"}, names); diff != "" {
		t.Errorf("owned pods (-want +got):\n%s", diff)
	}
	var patched []string
	for _, a := range client.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok {
			patched = append(patched, p.GetName()+" "+string(p.GetPatch()))
		}
	}
	if len(patched) != 2 || !strings.HasPrefix(patched[0], `web-1 {"metadata":{"ownerReferences":[{"$patch":"delete"`) ||
		!strings.HasPrefix(patched[1], `web-2 {"metadata":{"ownerReferences":[{"apiVersion":"apps/v1"`) {
		t.Errorf("patches %q, want web-1 released and web-2 adopted", patched)
	}
}

func TestAReplacedSetAdoptsNothing(t *testing.T) {
	web := testgen.StatefulSet("web")
	replaced := web.DeepCopy()
	replaced.UID = "uid-new"
	adoptable := orphan(testgen.Pod(web, 0))
	client := fake.NewClientset(replaced, adoptable)
	selector := labels.SelectorFromSet(web.Spec.Selector.MatchLabels)
	got, err := claimPods(context.Background(), client, apiRecheck(client), web, selector, []*corev1.Pod{adoptable})
	if err == nil || !strings.Contains(err.Error(), "was replaced") || len(got) != 0 {
		t.Errorf("adopted %d pods with error %v, want none and an error saying the set was replaced", len(got), err)
	}
}

func TestASetBeingDeletedReleasesAndAdoptsNothing(t *testing.T) {
	web := testgen.StatefulSet("web")
	web.DeletionTimestamp = &metav1.Time{Time: testgen.Epoch}
	stray := testgen.Pod(web, 0, testgen.PodLabel("app", "elsewhere"))
	adoptable := orphan(testgen.Pod(web, 1))
	client := fake.NewClientset(web, stray, adoptable)
	selector := labels.SelectorFromSet(web.Spec.Selector.MatchLabels)
	if _, err := claimPods(context.Background(), client, apiRecheck(client), web, selector, []*corev1.Pod{stray, adoptable}); err != nil {
		t.Fatal(err)
	}
	if got := writes(client); len(got) != 0 {
		t.Errorf("writes %q for a set being deleted, want none", got)
	}
}

// A sync adopts the namespace's orphan revisions its selector matches, and
// no other: not one with another controller, not one whose labels differ,
// not one in another namespace.
func TestASyncAdoptsOnlyTheOrphanRevisionsItsSelectorMatches(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(1))
	set.ResourceVersion = "1"
	revision := func(name, uid string, change func(*appsv1.ControllerRevision)) *appsv1.ControllerRevision {
		rev := testgen.RevisionOf(set, 1)
		rev.Name, rev.UID, rev.ResourceVersion, rev.OwnerReferences = name, types.UID(uid), "1", nil
		change(rev)
		return rev
	}
	objs := []runtime.Object{set,
		revision("web-orphan", "orphan-uid", func(*appsv1.ControllerRevision) {}),
		revision("web-owned-elsewhere", "other-uid", func(r *appsv1.ControllerRevision) {
			r.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "db-uid", Controller: ptr.To(true)}}
		}),
		revision("web-unmatched", "unmatched-uid", func(r *appsv1.ControllerRevision) { r.Labels = map[string]string{"app": "other"} }),
		revision("web-elsewhere", "elsewhere-uid", func(r *appsv1.ControllerRevision) { r.Namespace = "elsewhere" }),
	}
	c, client := newTestController(t, objs...)
	client.ClearActions()
	if _, err := c.sync(context.Background(), set.Namespace+"/"+set.Name); err != nil {
		t.Fatal(err)
	}
	var adopted []string
	for _, a := range client.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && a.GetResource().Resource == "controllerrevisions" {
			adopted = append(adopted, a.GetNamespace()+"/"+p.GetName())
		}
	}
	if want := []string{set.Namespace + "/web-orphan"}; !cmp.Equal(adopted, want) {
		t.Errorf("adopted %v, want %v", adopted, want)
	}
}
