package realnode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// The role probe with real pods: the chart's controller, itself a pod on
// the real node, asks each pod of an extended set over the node's bridge
// and writes the answer to the role label (as field manager
// ordinal-role-probe); a switchover inside the application moves the
// labels; a pod whose endpoint fails keeps its label until
// failureThreshold probes in a row have failed — never sooner than
// (failureThreshold-1) periods after the endpoint broke — then loses it
// with a Warning, and gets it back at its next answer.
func TestTheRoleProbeLabelsRealPodsFromTheirAnswers(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	sets, err := ostsclient.NewForConfig(shared.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	const period, threshold = 2, 3
	set := &v1alpha1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"}}
	set.Spec.Replicas, set.Spec.ServiceName = ptr.To[int32](3), "db"
	set.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	set.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	set.Spec.Template = corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}}, Spec: appSpec("--role=follower")}
	set.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{{Name: "leader", Exclusive: true}, {Name: "follower"}},
		RoleProbe: &v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: appPort}, PeriodSeconds: period, FailureThreshold: threshold}}
	if _, err := sets.StatefulSets(ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := make([]*corev1.Pod, 3)
	for i := range pods {
		pods[i] = waitPod(ctx, t, ns, fmt.Sprintf("db-%d", i), 2*time.Minute, "Ready and labelled follower", func(p *corev1.Pod) bool {
			return ready(p) && p.Labels["role"] == "follower"
		})
	}
	for _, mf := range pods[0].ManagedFields {
		if strings.Contains(mf.FieldsV1.GetRawString(), `"f:role"`) && mf.Manager != v1alpha1.RoleProbeFieldManager {
			t.Errorf("the role label is managed by %q, want %q", mf.Manager, v1alpha1.RoleProbeFieldManager)
		}
	}

	began := time.Now()
	post(t, pods[0], "/role?name=leader")
	waitRoles(ctx, t, ns, "leader follower follower")
	t.Logf("db-0 labelled leader %s after it answered so (period %d s)", time.Since(began).Round(100*time.Millisecond), period)

	// A switchover inside the application: db-1 takes over.
	post(t, pods[1], "/role?name=leader")
	post(t, pods[0], "/role?name=follower")
	waitRoles(ctx, t, ns, "follower leader follower")

	// db-2's endpoint breaks: the label stays for the failed probes below
	// the threshold, then goes.
	broke := time.Now()
	post(t, pods[2], "/role?down=true")
	var gone time.Time
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(ctx, "db-2", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if _, ok := p.Labels["role"]; !ok {
			gone = time.Now()
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("db-2's role label still there a minute after its endpoint broke: %v", err)
	}
	kept := gone.Sub(broke)
	t.Logf("db-2's label removed %s after its endpoint broke (at least %d s: %d failed probes %d s apart)", kept.Round(100*time.Millisecond),
		(threshold-1)*period, threshold, period)
	if kept < (threshold-1)*period*time.Second {
		t.Errorf("db-2's label removed %s after its endpoint broke, before %d failed probes %d s apart could have been made", kept, threshold, period)
	}
	p, err := client.CoreV1().Pods(ns).Get(ctx, "db-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var run v1alpha1.RoleProbeFailure
	if err := json.Unmarshal([]byte(p.Annotations[v1alpha1.RoleProbeAnnotation]), &run); err != nil || run.Reason != "HTTP 503" || !run.Cleared {
		t.Errorf("db-2's %s annotation %q (%v), want reason HTTP 503, cleared", v1alpha1.RoleProbeAnnotation, p.Annotations[v1alpha1.RoleProbeAnnotation], err)
	}
	// The controller records its event once the label is removed; the
	// event reaches the API server on its own, after the patch.
	var events []corev1.Event
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=RoleProbeFailed"})
		if err == nil {
			events = list.Items
		}
		return len(events) > 0, nil
	})
	if err != nil {
		t.Errorf("no RoleProbeFailed event 30 s after db-2's label was removed: %v", err)
	} else if !strings.Contains(events[0].Message, "Pod db-2: role probe failed 3 times in a row (HTTP 503); label role=follower removed") {
		t.Errorf("RoleProbeFailed events: %+v", events)
	}

	post(t, pods[2], "/role?down=false")
	waitRoles(ctx, t, ns, "follower leader follower")
	waitPod(ctx, t, ns, "db-2", 30*time.Second, "without the role-probe annotation", func(p *corev1.Pod) bool {
		_, ok := p.Annotations[v1alpha1.RoleProbeAnnotation]
		return !ok
	})
}

// waitRoles waits until db-0, db-1 and db-2 are labelled want (their role
// labels, space-separated, "-" for none).
func waitRoles(ctx context.Context, t *testing.T, ns, want string) {
	t.Helper()
	var got string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var roles []string
		for i := range 3 {
			p, err := client.CoreV1().Pods(ns).Get(ctx, fmt.Sprintf("db-%d", i), metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			r, ok := p.Labels["role"]
			if !ok {
				r = "-"
			}
			roles = append(roles, r)
		}
		got = strings.Join(roles, " ")
		return got == want, nil
	})
	if err != nil {
		t.Fatalf("roles %q, want %q: %v", got, want, err)
	}
}
