package migrate

import (
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Describe writes what Run would do, step by step, for --dry-run. The API
// server has already accepted the new set in a dry run.
func (p *Plan) Describe(w io.Writer, backupDir string) {
	fmt.Fprintf(w, "would migrate %s to %s (the API server accepts the new set in a dry run):\n", p.FromRef(), p.ToRef())
	for _, r := range p.Overridden {
		fmt.Fprintf(w, "  --force overrides: %s\n", r)
	}
	for _, l := range p.Losses {
		fmt.Fprintf(w, "  %s does not keep: %s\n", p.To.APIVersion(), l)
	}
	fmt.Fprintf(w, "  1. back up %s, and the new set's manifest, into %s\n", p.FromRef(), backupDir)
	fmt.Fprintf(w, "  2. delete %s with propagationPolicy=Orphan; pods %s and revisions %s keep running\n",
		p.FromRef(), podNames(p.Pods), revisionNames(p.Revisions))
	fmt.Fprintf(w, "  3. wait until the garbage collector has removed their owner references\n")
	fmt.Fprintf(w, "  4. create %s with the same spec; status.currentRevision %s, collisionCount %d\n",
		p.ToRef(), orNone(p.CurrentRevision), deref(p.CollisionCount))
	if p.rolling() {
		fmt.Fprintf(w, "  5. wait until the controller of %s adopts them; its rollout goes on from revision %s to %s\n",
			p.To.APIVersion(), orNone(p.CurrentRevision), orNone(p.UpdateRevision))
		return
	}
	fmt.Fprintf(w, "  5. wait until the controller of %s adopts them at update revision %s, with no pod restarted\n",
		p.To.APIVersion(), orNone(p.UpdateRevision))
}

func podNames(pods []*corev1.Pod) string {
	names := make([]string, 0, len(pods))
	for _, p := range pods {
		names = append(names, p.Name)
	}
	return orNone(strings.Join(names, ", "))
}

func revisionNames(revs []*appsv1.ControllerRevision) string {
	names := make([]string, 0, len(revs))
	for _, r := range revs {
		names = append(names, r.Name)
	}
	return orNone(strings.Join(names, ", "))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
