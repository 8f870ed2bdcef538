package nodes

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// electing builds pod db-<ord>, Ready or not, with labels.
func electingPod(ord int, ready bool, labels ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("db-%d", ord), Labels: map[string]string{},
		Annotations: map[string]string{AnnotationRole: RoleElect}}}
	for i := 0; i+1 < len(labels); i += 2 {
		p.Labels[labels[i]] = labels[i+1]
	}
	p.Status.Phase = corev1.PodRunning
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	return p
}

func going(p *corev1.Pod) *corev1.Pod {
	p.DeletionTimestamp = &metav1.Time{}
	return p
}

// writes renders a plan as "db-0 role=leader" lines, labels sorted.
func writes(plan []relabel) []string {
	var out []string
	for _, w := range plan {
		line := w.pod.Name
		for _, k := range slices.Sorted(maps.Keys(w.labels)) {
			line += " " + k + "=" + w.labels[k]
		}
		out = append(out, line)
	}
	return out
}

func TestTheSimulatedElection(t *testing.T) {
	const sw = v1alpha1.SwitchoverHookLabel
	tests := []struct {
		name string
		pods []*corev1.Pod
		want []string
	}{
		{"the lowest Ready pod is elected, the other Ready ones follow, a pod not Ready is left alone",
			[]*corev1.Pod{electingPod(2, true), electingPod(0, false), electingPod(1, true)},
			[]string{"db-1 role=leader", "db-2 role=follower"}},
		{"a settled election writes nothing",
			[]*corev1.Pod{electingPod(0, true, "role", "follower"), electingPod(1, true, "role", "leader")},
			nil},
		{"a leader going away is replaced and keeps its label",
			[]*corev1.Pod{going(electingPod(0, true, "role", "leader")), electingPod(1, true, "role", "follower"), electingPod(2, true, "role", "follower")},
			[]string{"db-1 role=leader"}},
		{"a leader no longer Ready becomes a follower",
			[]*corev1.Pod{electingPod(0, false, "role", "leader"), electingPod(1, true, "role", "follower")},
			[]string{"db-1 role=leader", "db-0 role=follower"}},
		{"a switchover labels the new leader first, then the old one follower and Done",
			[]*corev1.Pod{electingPod(0, true, "role", "follower"), electingPod(1, true, "role", "follower"), electingPod(2, true, "role", "leader", sw, v1alpha1.HookPending)},
			[]string{"db-0 role=leader", "db-2 apps.ordinal.dev/switchover=Done role=follower"}},
		{"a switchover with no other Ready pod waits",
			[]*corev1.Pod{electingPod(0, false), electingPod(1, true, "role", "leader", sw, v1alpha1.HookPending)},
			nil},
		{"two Ready leaders keep the one not switching over",
			[]*corev1.Pod{electingPod(0, true, "role", "leader", sw, v1alpha1.HookDone), electingPod(1, true, "role", "leader")},
			[]string{"db-0 role=follower"}},
		{"another label key",
			[]*corev1.Pod{func() *corev1.Pod {
				p := electingPod(0, true)
				p.Annotations[AnnotationRoleLabel] = "example.com/role"
				return p
			}()},
			[]string{"db-0 example.com/role=leader"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, writes(planElection(tt.pods))); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
		})
	}
}
