package nodes

import (
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// answering is electingPod under RoleAnswer, its role in annotations.
func answering(ord int, ready bool, role string, labels ...string) *corev1.Pod {
	p := electingPod(ord, ready, labels...)
	p.Annotations[AnnotationRole] = RoleAnswer
	if role != "" {
		p.Annotations[AnnotationRoleAnswer] = role
	}
	return p
}

// answerWrites renders a plan as "db-0 role-answer=leader" lines, with
// labels after the annotation.
func answerWrites(plan []relabel) []string {
	var out []string
	for _, w := range plan {
		line := w.pod.Name
		if v, ok := w.annotations[AnnotationRoleAnswer]; ok {
			line += " role-answer=" + v
		}
		for _, k := range slices.Sorted(maps.Keys(w.labels)) {
			line += " " + k + "=" + w.labels[k]
		}
		out = append(out, line)
	}
	return out
}

// Under RoleAnswer the election keeps roles in the pods' annotations and
// never writes the role label; a switchover still ends with the old
// leader's handshake Done.
func TestTheAnsweringElectionKeepsRolesInAnnotations(t *testing.T) {
	const sw = v1alpha1.SwitchoverHookLabel
	got := answerWrites(planElection([]*corev1.Pod{answering(2, true, ""), answering(0, false, ""), answering(1, true, "")}))
	if want := []string{"db-1 role-answer=leader", "db-2 role-answer=follower"}; !slices.Equal(got, want) {
		t.Errorf("first election: %q, want %q", got, want)
	}
	// A role label the probe wrote does not count: the annotation does.
	got = answerWrites(planElection([]*corev1.Pod{answering(0, true, "follower", "role", "leader"), answering(1, true, "leader", "role", "follower")}))
	if len(got) != 0 {
		t.Errorf("a settled election writes %q", got)
	}
	got = answerWrites(planElection([]*corev1.Pod{answering(0, true, "follower"), answering(1, true, "leader", "role", "leader", sw, v1alpha1.HookPending)}))
	if want := []string{"db-0 role-answer=leader", "db-1 role-answer=follower apps.ordinal.dev/switchover=Done"}; !slices.Equal(got, want) {
		t.Errorf("switchover: %q, want %q", got, want)
	}
}

// The probe socket answers for a running pod of a simulated node by the
// address in the request's Host: its role annotation, 503 or nothing as
// its probe annotation says; an address no such pod has gets its
// connection closed.
func TestTheSimulatedPodsAnswerRoleProbes(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{podIPIndex: indexPodIP})
	pod := func(name, ip, node, role, probe string) *corev1.Pod {
		p := answering(0, true, role)
		p.Name, p.Namespace, p.Status.PodIP, p.Spec.NodeName = name, "ns", ip, node
		if probe != "" {
			p.Annotations[AnnotationRoleProbe] = probe
		}
		return p
	}
	for _, p := range []*corev1.Pod{
		pod("leader", "10.244.0.2", NodeName(0), "leader", ""),
		pod("none", "10.244.0.3", NodeName(1), "", ""),
		pod("broken", "10.244.0.4", NodeName(0), "follower", ProbeFail),
		pod("slow", "10.244.0.5", NodeName(0), "follower", ProbeHang),
		pod("real", "10.244.0.6", "ordinal-real-0", "leader", ""),
	} {
		if err := idx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	socket := filepath.Join(t.TempDir(), "p.sock")
	if err := serveProbes(ctx, socket, idx); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 500 * time.Millisecond, Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", socket)
	}}}
	ask := func(ip string) string {
		resp, err := client.Get("http://" + ip + ":8080/role")
		if err != nil {
			if strings.Contains(err.Error(), "Timeout") {
				return "timeout"
			}
			return "closed"
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.Status[:3] + " " + strings.TrimSpace(string(body))
	}
	for ip, want := range map[string]string{"10.244.0.2": "200 leader", "10.244.0.3": "200 ", "10.244.0.4": "503 simulated failure",
		"10.244.0.5": "timeout", "10.244.0.6": "closed", "10.244.0.9": "closed"} {
		if got := ask(ip); got != want {
			t.Errorf("%s answers %q, want %q", ip, got, want)
		}
	}
}
