package shape

import (
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// templateClaims are the claims the pod template's volumes name.
func templateClaims(spec corev1.PodSpec) map[string]bool {
	out := map[string]bool{}
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			out[v.PersistentVolumeClaim.ClaimName] = true
		}
	}
	return out
}

// ofTemplates says whether a claim is one of the set's: TEMPLATE-SET-N.
func ofTemplates(set *appsv1.StatefulSet, claim string) bool {
	for _, t := range set.Spec.VolumeClaimTemplates {
		if pod, ok := strings.CutPrefix(claim, t.Name+"-"); ok && ofSet(set.Name, pod) {
			return true
		}
	}
	return false
}

// ofSet says whether a pod name is one of the set's: SET-N.
func ofSet(set, pod string) bool {
	_, ok := planner.ParseOrdinal(set, pod)
	return ok
}

// classNames are the StorageClasses the set's claims and claim templates
// name, sorted.
func classNames(s *Shape) []string {
	var out []string
	add := func(name *string) {
		if name != nil && *name != "" && !slices.Contains(out, *name) {
			out = append(out, *name)
		}
	}
	for i := range s.Set.Spec.VolumeClaimTemplates {
		add(s.Set.Spec.VolumeClaimTemplates[i].Spec.StorageClassName)
	}
	for _, c := range s.Claims {
		add(c.Spec.StorageClassName)
	}
	slices.Sort(out)
	return out
}

// usedByNode sums the requests of pods that hold room on their node: not
// finished, on a node.
func usedByNode(pods []*corev1.Pod) map[string]corev1.ResourceList {
	out := map[string]corev1.ResourceList{}
	for _, p := range pods {
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		used := out[p.Spec.NodeName]
		if used == nil {
			used = corev1.ResourceList{}
			out[p.Spec.NodeName] = used
		}
		for name, q := range podRequests(p) {
			sum := used[name]
			sum.Add(q)
			used[name] = sum
		}
		n := used[corev1.ResourcePods]
		n.Add(*resourceOne())
		used[corev1.ResourcePods] = n
	}
	return out
}

// podRequests are a pod's effective requests, as the scheduler counts
// them: the sum of its containers' or its largest init container's,
// whichever is larger, per resource.
func podRequests(p *corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, c := range p.Spec.Containers {
		for name, q := range c.Resources.Requests {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
	}
	for _, c := range p.Spec.InitContainers {
		for name, q := range c.Resources.Requests {
			if cur, ok := out[name]; !ok || q.Cmp(cur) > 0 {
				out[name] = q.DeepCopy()
			}
		}
	}
	return out
}
