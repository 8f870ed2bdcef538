package planner

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ordinal-sh/ordinal/internal/revision"
)

var (
	setKind = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	podKind = corev1.SchemeGroupVersion.WithKind("Pod")
)

// PodName is the name of the set's pod at ordinal: <set>-<ordinal>.
func PodName(setName string, ordinal int32) string {
	var buf [64]byte
	return string(appendPodName(buf[:0], setName, ordinal))
}

// ClaimName is the name of the claim made from the volumeClaimTemplate named
// template for the set's pod at ordinal: <template>-<set>-<ordinal>.
func ClaimName(template, setName string, ordinal int32) string {
	var buf [96]byte
	return string(appendClaimName(buf[:0], template, setName, ordinal))
}

// appendPodName appends PodName(setName, ordinal) to b. A sync compares
// and looks up names per pod and template; built in the caller's buffer,
// such a name costs no allocation (IsPodName, IsClaimName, claimAt).
func appendPodName(b []byte, setName string, ordinal int32) []byte {
	b = append(append(b, setName...), '-')
	return strconv.AppendInt(b, int64(ordinal), 10)
}

// appendClaimName appends ClaimName(template, setName, ordinal) to b.
func appendClaimName(b []byte, template, setName string, ordinal int32) []byte {
	return appendPodName(append(append(b, template...), '-'), setName, ordinal)
}

// IsPodName reports whether name is PodName(setName, ordinal), without
// building that name.
func IsPodName(name, setName string, ordinal int32) bool {
	var buf [64]byte
	return name == string(appendPodName(buf[:0], setName, ordinal))
}

// IsClaimName reports whether name is ClaimName(template, setName,
// ordinal), without building that name.
func IsClaimName(name, template, setName string, ordinal int32) bool {
	var buf [96]byte
	return name == string(appendClaimName(buf[:0], template, setName, ordinal))
}

// claimAt is claims[ClaimName(template, setName, ordinal)], looked up
// without building the name.
func claimAt(claims map[string]*corev1.PersistentVolumeClaim, template, setName string, ordinal int32) *corev1.PersistentVolumeClaim {
	var buf [96]byte
	return claims[string(appendClaimName(buf[:0], template, setName, ordinal))]
}

// ParseOrdinal returns the ordinal of a pod of the named set, read as
// upstream reads it: the name is the set's name, a dash and decimal digits
// that fit an int32. Like upstream it accepts leading zeros: "web-01" is
// ordinal 1 of set web, and takes that ordinal's place although its name is
// not web-1 (its identity can then never be repaired; see repairIdentity).
func ParseOrdinal(setName, podName string) (int32, bool) {
	rest, ok := strings.CutPrefix(podName, setName)
	digits, dash := strings.CutPrefix(rest, "-")
	if !ok || !dash || !allDigits(digits) {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// NewPod returns the pod the set creates at ordinal from revision rev: the
// revision's template, the stable identity (name, hostname, subdomain,
// identity labels), the revision label and one claim volume per
// volumeClaimTemplate.
func NewPod(set *appsv1.StatefulSet, rev *appsv1.ControllerRevision, ordinal int32) (*corev1.Pod, error) {
	templated, err := revision.Apply(set, rev)
	if err != nil {
		return nil, err
	}
	return newPod(templated, setKind, rev.Name, ordinal), nil
}

// newPod builds the pod from a set that already carries the revision's
// template, so a sync applies each revision once rather than once per pod.
func newPod(set *appsv1.StatefulSet, owner schema.GroupVersionKind, revisionName string, ordinal int32) *corev1.Pod {
	tmpl := &set.Spec.Template
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    set.Name + "-",
			Labels:          copyMap(tmpl.Labels),
			Annotations:     copyMap(tmpl.Annotations),
			Finalizers:      append([]string(nil), tmpl.Finalizers...),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, owner)},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	setIdentity(set, pod, ordinal)
	pod.Spec.Hostname = pod.Name
	pod.Spec.Subdomain = set.Spec.ServiceName
	setStorage(set, pod, ordinal)
	pod.Labels[appsv1.StatefulSetRevisionLabel] = revisionName
	return pod
}

// setIdentity writes the parts of a pod's identity that may be changed after
// creation (hostname and subdomain are immutable and set only by newPod).
func setIdentity(set *appsv1.StatefulSet, pod *corev1.Pod, ordinal int32) {
	pod.Name = PodName(set.Name, ordinal)
	pod.Namespace = set.Namespace
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.StatefulSetPodNameLabel] = pod.Name
	pod.Labels[appsv1.PodIndexLabel] = strconv.FormatInt(int64(ordinal), 10)
}

// setStorage points one volume per volumeClaimTemplate at the pod's claim,
// replacing any template volume of the same name, and keeps the pod's other
// volumes after them. Upstream orders the claim volumes by map iteration;
// here they follow spec order so that the same set always yields the same
// pod.
func setStorage(set *appsv1.StatefulSet, pod *corev1.Pod, ordinal int32) {
	templates := set.Spec.VolumeClaimTemplates
	claimed := make(map[string]bool, len(templates))
	volumes := make([]corev1.Volume, 0, len(templates)+len(pod.Spec.Volumes))
	for _, t := range templates {
		claimed[t.Name] = true
		volumes = append(volumes, corev1.Volume{
			Name: t.Name,
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{
				ClaimName: ClaimName(t.Name, set.Name, ordinal),
			}},
		})
	}
	for _, v := range pod.Spec.Volumes {
		if !claimed[v.Name] {
			volumes = append(volumes, v)
		}
	}
	pod.Spec.Volumes = volumes
}

// NewClaim returns the claim the set creates for its pod at ordinal from the
// volumeClaimTemplate tmpl. Its labels are the template's, overwritten by the
// set's selector labels so the claim can be found from the set. It has no
// owner references; the retention policy adds them afterwards.
func NewClaim(set *appsv1.StatefulSet, tmpl *corev1.PersistentVolumeClaim, ordinal int32) *corev1.PersistentVolumeClaim {
	claim := tmpl.DeepCopy()
	claim.Name = ClaimName(tmpl.Name, set.Name, ordinal)
	claim.Namespace = set.Namespace
	if set.Spec.Selector != nil && len(set.Spec.Selector.MatchLabels) > 0 {
		if claim.Labels == nil {
			claim.Labels = make(map[string]string, len(set.Spec.Selector.MatchLabels))
		}
		for k, v := range set.Spec.Selector.MatchLabels {
			claim.Labels[k] = v
		}
	}
	return claim
}

// identityMatches is upstream's check: the canonical name of its ordinal,
// the right namespace and pod-name label. Like upstream it ignores the
// pod-index label, hostname and subdomain, so a pod missing only its
// pod-index label is left alone.
func identityMatches(set *appsv1.StatefulSet, pod *corev1.Pod, ordinal int32) bool {
	return IsPodName(pod.Name, set.Name, ordinal) && pod.Namespace == set.Namespace &&
		pod.Labels[appsv1.StatefulSetPodNameLabel] == pod.Name
}

// storageMatches reports whether every volumeClaimTemplate has a volume of
// its name that mounts the pod's claim.
func storageMatches(set *appsv1.StatefulSet, pod *corev1.Pod, ordinal int32) bool {
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		v := volumeNamed(pod.Spec.Volumes, t.Name)
		if v == nil || v.PersistentVolumeClaim == nil || !IsClaimName(v.PersistentVolumeClaim.ClaimName, t.Name, set.Name, ordinal) {
			return false
		}
	}
	return true
}

// volumeNamed is the last of volumes called name (the one a map from
// name to volume would keep), or nil. A pod has a handful of volumes: a
// scan costs less than the map a sync would otherwise build per pod.
func volumeNamed(volumes []corev1.Volume, name string) *corev1.Volume {
	for i := len(volumes) - 1; i >= 0; i-- {
		if volumes[i].Name == name {
			return &volumes[i]
		}
	}
	return nil
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+3)
	for k, v := range m {
		out[k] = v
	}
	return out
}
