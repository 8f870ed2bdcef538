package controller

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

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
