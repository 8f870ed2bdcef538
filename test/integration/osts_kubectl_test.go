package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// rows splits kubectl's table output into cells by the header's columns
// (each starts after two spaces), so an empty cell stays a cell.
func rows(out string) [][]string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var starts []int
	for i, r := range lines[0] {
		if r != ' ' && (i == 0 || i >= 2 && lines[0][i-2:i] == "  ") {
			starts = append(starts, i)
		}
	}
	var rows [][]string
	for _, line := range lines {
		var row []string
		for k, from := range starts {
			to := len(line)
			if k+1 < len(starts) {
				to = min(starts[k+1], len(line))
			}
			row = append(row, strings.TrimSpace(line[min(from, len(line)):to]))
		}
		rows = append(rows, row)
	}
	return rows
}

// The extended kind with kubectl, as a user meets it: apply the example,
// list it (printer columns, short name, category), explain it, scale it
// through the scale subresource; apps/v1's names keep meaning apps/v1.
func TestKubectlAppliesListsAndScalesAnExtendedSet(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	out := kubectl(t, ns, "apply", "-f", "../../examples/web-osts.yaml")
	if want := "service/nginx created\nstatefulset.apps.ordinal.dev/web created\n"; out != want {
		t.Fatalf("kubectl apply printed %q, want %q", out, want)
	}
	// No controller runs here: the test writes the status a controller would.
	sets := extendedSets(t, ns)
	setStatus(t, sets, v1alpha1.StatefulSetStatus{
		Replicas: 3, ReadyReplicas: 2, CurrentReplicas: 1, UpdatedReplicas: 2, CurrentRevision: "web-5c9f486cd7", UpdateRevision: "web-896b9878c",
		LabelSelector: "app=nginx",
		Conditions: []metav1.Condition{{Type: v1alpha1.ConditionProgressing, Status: metav1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
			Message: "web-2 has not become Ready in 600s", LastTransitionTime: metav1.Now()}},
	})

	got := rows(kubectl(t, ns, "get", "osts"))
	want := [][]string{{"NAME", "DESIRED", "READY", "UPDATED", "PROGRESSING", "HELD", "AGE"}, {"web", "3", "2", "2", "ProgressDeadlineExceeded", ""}}
	if len(got) == 2 && len(got[1]) == 7 {
		got[1] = got[1][:6] // the age
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kubectl get osts (-want +got):\n%s", diff)
	}
	got = rows(kubectl(t, ns, "get", "osts", "-o", "wide"))
	want = [][]string{{"NAME", "DESIRED", "READY", "UPDATED", "CURRENT REVISION", "UPDATE REVISION", "PROGRESSING", "HELD", "AGE"},
		{"web", "3", "2", "2", "web-5c9f486cd7", "web-896b9878c", "ProgressDeadlineExceeded", ""}}
	if len(got) == 2 && len(got[1]) == 9 {
		got[1] = got[1][:8] // the age
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kubectl get osts -o wide (-want +got):\n%s", diff)
	}
	if out := kubectl(t, ns, "get", "all", "-o", "name"); !strings.Contains(out, "statefulset.apps.ordinal.dev/web\n") {
		t.Errorf("kubectl get all does not list the set:\n%s", out)
	}
	for _, name := range []string{"sts", "statefulsets"} {
		if out := kubectl(t, ns, "get", name, "-o", "name"); out != "" {
			t.Errorf("kubectl get %s lists %q: it must keep meaning apps/v1, which has no set here", name, out)
		}
	}
	if out := kubectl(t, ns, "explain", "osts.spec.updateStrategy.rollingUpdate.onFailure"); !strings.Contains(out, "OnFailure is what a failed rollout does") {
		t.Errorf("kubectl explain lacks the field's description:\n%s", out)
	}

	if out := kubectl(t, ns, "scale", "osts/web", "--replicas=5"); out != "statefulset.apps.ordinal.dev/web scaled\n" {
		t.Errorf("kubectl scale printed %q", out)
	}
	set, err := sets.Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *set.Spec.Replicas != 5 {
		t.Errorf("after kubectl scale, spec.replicas is %d, want 5", *set.Spec.Replicas)
	}
	scale := kubectl(t, ns, "get", "osts", "web", "--subresource=scale", "-o", "jsonpath={.spec.replicas} {.status.replicas} {.status.selector}")
	if scale != "5 3 app=nginx" {
		t.Errorf("the scale subresource reads %q, want spec 5, status 3, selector app=nginx", scale)
	}
}
