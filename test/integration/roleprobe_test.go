package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/podcall"
)

// startProbingOrdinal runs the controller for ns with the plane's
// simulated pods answering its role probes.
func startProbingOrdinal(t *testing.T, ns string) {
	t.Helper()
	socket := planetest.Plane().SimulatedPodsSocket()
	if socket == "" {
		t.Fatal("the plane's data directory is too long for the simulated pods' socket")
	}
	startOrdinalWith(t, ns, controller.Options{Hooks: podcall.HookOptions{SimulatedPods: podcall.SimulatedPodsAt(socket)}})
}

// withRoleProbe gives the set a role probe every second, two failures
// in a row clearing a label.
func withRoleProbe(s *v1alpha1.StatefulSet) {
	s.Spec.Roles.RoleProbe = &v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: 8080}, PeriodSeconds: 1, TimeoutSeconds: 1, FailureThreshold: 2}
}

// annotatePod sets (value non-empty) or removes an annotation of pod.
func annotatePod(t *testing.T, ns, pod, key, value string) {
	t.Helper()
	var v any
	if value != "" {
		v = value
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: v}}})
	if _, err := client.CoreV1().Pods(ns).Patch(context.Background(), pod, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// A "database" whose simulated pods keep their roles to themselves and
// answer a role probe: the controller labels them from their answers
// (field manager ordinal-role-probe), the rolling update replaces the
// followers first and switches the leader over, the labels following the
// answers; a pod whose probe fails keeps its label for a failure below
// the threshold, then loses it, with a Warning, and gets it back.
func TestTheRoleProbeLabelsSimulatedPodsFromTheirAnswers(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	startProbingOrdinal(t, ns)
	readySet(t, ns, 3, func(s *v1alpha1.StatefulSet) {
		s.Spec.Template.Annotations = map[string]string{nodes.AnnotationRole: nodes.RoleAnswer}
	}, withRoles(quorumLeader, quorumFollower), withRoleProbe, withSwitchover(handshakeHook(60, v1alpha1.HookHalt)))
	leader := waitOneLeader(t, ns, "labelled by the probe")
	for _, p := range listPods(t, ns) {
		for _, mf := range p.ManagedFields {
			if strings.Contains(mf.FieldsV1.GetRawString(), `"f:role"`) && mf.Manager != v1alpha1.RoleProbeFieldManager {
				t.Errorf("%s's role label is managed by %q", p.Name, mf.Manager)
			}
		}
	}
	w := watchRoles(t, ns)
	rollTo(t, ns, imageNew)
	waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)
	gone, _ := w.snapshot()
	if len(gone) != 3 || !strings.HasPrefix(gone[2], leader+"=") {
		t.Errorf("pods went as %v, want the two followers, then %s", gone, leader)
	}
	for _, g := range gone {
		if strings.HasSuffix(g, "=leader") {
			t.Errorf("%s went while its label said it led", g)
		}
	}
	waitOneLeader(t, ns, "after the rollout")

	follower := podsWithRole(t, ns, "follower")[0]
	broke := time.Now()
	annotatePod(t, ns, follower, nodes.AnnotationRoleProbe, nodes.ProbeFail)
	waitFor(t, 30*time.Second, follower+"'s label removed", func() (bool, error) {
		p, ok := getPod(t, ns, follower)
		_, labelled := p.Labels["role"]
		return ok && !labelled, fmt.Errorf("labels %v", p.Labels)
	})
	// Two failed probes a period (1 s) apart: never within a second of
	// the break.
	if kept := time.Since(broke); kept < time.Second {
		t.Errorf("%s's label removed %s after its probe broke, before two failed probes a second apart", follower, kept)
	}
	p, _ := getPod(t, ns, follower)
	var run v1alpha1.RoleProbeFailure
	if err := json.Unmarshal([]byte(p.Annotations[v1alpha1.RoleProbeAnnotation]), &run); err != nil || run.Reason != "HTTP 503" || !run.Cleared {
		t.Errorf("%s's %s annotation %q, want HTTP 503, cleared", follower, v1alpha1.RoleProbeAnnotation, p.Annotations[v1alpha1.RoleProbeAnnotation])
	}
	annotatePod(t, ns, follower, nodes.AnnotationRoleProbe, "")
	waitFor(t, 30*time.Second, follower+" labelled follower again, its probe's annotation gone", func() (bool, error) {
		p, ok := getPod(t, ns, follower)
		_, failing := p.Annotations[v1alpha1.RoleProbeAnnotation]
		return ok && p.Labels["role"] == "follower" && !failing, fmt.Errorf("labels %v, annotations %v", p.Labels, p.Annotations)
	})
	events, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "reason=" + podcall.EventRoleProbeFailed})
	if err != nil || len(events.Items) != 1 || !strings.Contains(events.Items[0].Message, "Pod "+follower+": role probe failed 2 times in a row (HTTP 503); label role=follower removed") {
		t.Errorf("%s events: %v %+v", podcall.EventRoleProbeFailed, err, events)
	}
}

// examples/db-role-probe.yaml, as docs/local-plane.md applies it: the
// controller labels the pods from their answers.
func TestTheRoleProbeExampleLabelsItsPods(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startProbingOrdinal(t, ns)
	kubectl(t, ns, "apply", "-f", "../../examples/db-role-probe.yaml")
	if leader := waitOneLeader(t, ns, "the example labelled by the probe"); leader != "db-0" {
		t.Errorf("%s leads, want db-0 (the first Ready pod)", leader)
	}
}
