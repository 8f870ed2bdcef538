package integration

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/cli/root"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// cmdResult is what one `ordinal` command printed and its exit code.
type cmdResult struct {
	out, err string
	code     int
}

// runOrdinal runs the ordinal command in process against the plane, in ns.
func runOrdinal(t *testing.T, ns string, args ...string) cmdResult {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append(args, "--kubeconfig", planetest.Plane().KubeconfigPath(), "-n", ns)
	code := root.Main(args, &out, &errOut)
	t.Logf("$ ordinal %s  => exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
	return cmdResult{out.String(), errOut.String(), code}
}

// `ordinal scale --remove 1` removes exactly web-1: its dry run plans
// that delete and changes nothing, the command then reserves ordinal 1
// and lowers replicas in one patch, and web-0 and web-2 keep their UIDs.
// Asking again, or for an ordinal without a pod, is refused.
func TestScaleRemoveTakesExactlyTheChosenPod(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3))))
	read := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	before := podUIDs(t, ns)

	dry := runOrdinal(t, ns, "scale", "osts/web", "--remove", "1", "--dry-run")
	if dry.code != 0 || !strings.Contains(dry.out, "would reserve ordinal 1 and lower replicas from 3 to 2, so that web-1 goes and no other pod") ||
		!strings.Contains(dry.out, "EvictPod Pod/web-1") {
		t.Errorf("dry run: exit %d, want 0, the change and web-1's delete in the plan", dry.code)
	}
	if err := userPartsEqual(read, getExtended(t, ns)); err != nil {
		t.Errorf("the dry run changed the set: %v", err)
	}

	res := runOrdinal(t, ns, "scale", "osts/web", "--remove", "1")
	if res.code != 0 || !strings.Contains(res.out, "ordinal 1 reserved and replicas lowered from 3 to 2: web-1 goes") ||
		!strings.Contains(res.out, "follow it with: ordinal rollout status osts/web") {
		t.Fatalf("scale --remove 1: exit %d, want 0, what it did and how to follow it", res.code)
	}
	set := waitExtended(t, ns, time.Minute, "web-0 and web-2", podsAre(t, ns, "web-0", "web-2"))
	keptUIDs(t, ns, before, "web-0", "web-2")
	if *set.Spec.Replicas != 2 || !slices.Equal(set.Spec.ReserveOrdinals, []intstr.IntOrString{intstr.FromInt32(1)}) {
		t.Errorf("spec: replicas %d, reserveOrdinals %v; want 2 and [1]", *set.Spec.Replicas, set.Spec.ReserveOrdinals)
	}

	for ord, want := range map[string]string{
		"1": "ordinal 1 is already reserved (spec.reserveOrdinals [1])",
		"7": "ordinal 7 holds no pod of osts/web (its pods: web-0, web-2)",
	} {
		if r := runOrdinal(t, ns, "scale", "osts/web", "--remove", ord); r.code == 0 || !strings.Contains(r.err, want) {
			t.Errorf("scale --remove %s: exit %d, stderr %q; want a failure saying %q", ord, r.code, r.err, want)
		}
	}
	if err := userPartsEqual(set, getExtended(t, ns)); err != nil {
		t.Errorf("a refused command changed the set: %v", err)
	}
}

// userPartsEqual says how now differs from was in what a command of ours
// could write: the spec (and so the generation), labels and annotations.
// The status is the controller's and may move on after a wait (the
// condition's message once a terminating pod is gone), so it is not
// compared.
func userPartsEqual(was, now *v1alpha1.StatefulSet) error {
	switch {
	case now.Generation != was.Generation:
		return fmt.Errorf("generation %d, was %d", now.Generation, was.Generation)
	case !equality.Semantic.DeepEqual(now.Spec, was.Spec):
		return fmt.Errorf("spec changed: replicas %d, reserveOrdinals %v; were %d, %v",
			*now.Spec.Replicas, now.Spec.ReserveOrdinals, *was.Spec.Replicas, was.Spec.ReserveOrdinals)
	case !maps.Equal(now.Labels, was.Labels):
		return fmt.Errorf("labels %v, were %v", now.Labels, was.Labels)
	case !maps.Equal(now.Annotations, was.Annotations):
		return fmt.Errorf("annotations %v, were %v", now.Annotations, was.Annotations)
	}
	return nil
}

// `ordinal scale --replace 1` has the controller delete web-1 and create it
// again; web-0 and web-2 are not touched.
func TestScaleReplaceRecreatesTheChosenPod(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3))))
	waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	before := podUIDs(t, ns)

	res := runOrdinal(t, ns, "scale", "osts/web", "--replace", "1")
	if res.code != 0 || !strings.Contains(res.out, "web-1 labelled "+v1alpha1.DeleteRequestedLabel+"=true") ||
		!strings.Contains(res.out, "ordinal rollout status osts/web") {
		t.Fatalf("scale --replace 1: exit %d, want 0, what it did and how to follow it", res.code)
	}
	waitExtended(t, ns, time.Minute, "web-1 replaced", func(set *v1alpha1.StatefulSet) error {
		if podUIDs(t, ns)["web-1"] == before["web-1"] {
			return fmt.Errorf("web-1 not yet replaced")
		}
		return podsAre(t, ns, "web-0", "web-1", "web-2")(set)
	})
	keptUIDs(t, ns, before, "web-0", "web-2")
	for _, args := range [][]string{{}, {"--remove", "1", "--replace", "2"}, {"--replace", "1-2"}} {
		if r := runOrdinal(t, ns, append([]string{"scale", "osts/web"}, args...)...); r.code != 2 {
			t.Errorf("scale osts/web %v: exit %d, want 2 (usage)", args, r.code)
		}
	}
	if r := runOrdinal(t, ns, "scale", "osts/web", "--replace", "5"); r.code == 0 || !strings.Contains(r.err, "ordinal 5 holds no pod of osts/web") {
		t.Errorf("scale --replace 5: exit %d, stderr %q; want a failure saying ordinal 5 holds no pod", r.code, r.err)
	}
}

// A removal built from a set that changed before it was sent changes
// nothing: its patch tests the resourceVersion it read. A replacement
// whose pod was replaced in between labels no pod, not even the new one
// of that name.
func TestScaleOfAChangedSetOrPodChangesNothing(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3))))
	waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	target, err := setops.LoadExtended(context.Background(), client, extendedClient(t), ns, setName)
	if err != nil {
		t.Fatal(err)
	}
	removal, _, err := target.PlanRemoval(context.Background(), []int32{1})
	if err != nil {
		t.Fatal(err)
	}
	patchExtended(t, ns, `{"spec":{"replicas":4}}`)
	err = target.Remove(context.Background(), removal)
	if err == nil || !strings.Contains(err.Error(), "changed since it was read, so nothing was changed") {
		t.Fatalf("Remove after a change: %v, want a refusal saying the set changed", err)
	}
	if set := getExtended(t, ns); *set.Spec.Replicas != 4 || len(set.Spec.ReserveOrdinals) != 0 {
		t.Errorf("spec: replicas %d, reserveOrdinals %v; want 4 and none", *set.Spec.Replicas, set.Spec.ReserveOrdinals)
	}
	replacement, _, err := target.PlanReplacement(context.Background(), []int32{2})
	if err != nil {
		t.Fatal(err)
	}
	old := replacement.Pods[0].UID
	deletePod(t, ns, "web-2")
	waitFor(t, time.Minute, "web-2 created again", func() (bool, error) {
		uid, ok := podUIDs(t, ns)["web-2"]
		return ok && uid != old, fmt.Errorf("web-2 not yet created again")
	})
	err = target.Replace(context.Background(), replacement)
	if err == nil || !strings.Contains(err.Error(), "web-2 was replaced since it was read, so it was not labelled") {
		t.Fatalf("Replace after the pod was replaced: %v, want a refusal saying it was replaced", err)
	}
	for _, p := range listPods(t, ns) {
		if _, ok := p.Labels[v1alpha1.DeleteRequestedLabel]; ok {
			t.Errorf("%s was labelled", p.Name)
		}
	}
}
