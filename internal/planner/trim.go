package planner

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// TrimPod returns a new pod holding only the fields Compute reads, and the
// metadata that ownership and selection need: name, namespace, UID,
// resourceVersion, creation and deletion times and grace, labels and owner
// references; hostname, subdomain and node name; the volumes that mount claims; the
// phase; the Ready condition's status and transition time; and, for a pod
// in trouble, what Classify reads (trimTrouble). Compute
// gives the same plan for the trimmed pod as for the whole one (a property
// test checks it), so a controller may cache only this. The trimmed pod
// shares maps and slices with pod and must never be written back whole.
func TrimPod(pod *corev1.Pod) *corev1.Pod {
	out := &corev1.Pod{ObjectMeta: trimMeta(&pod.ObjectMeta)}
	out.Spec.Hostname, out.Spec.Subdomain, out.Spec.NodeName = pod.Spec.Hostname, pod.Spec.Subdomain, pod.Spec.NodeName
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			out.Spec.Volumes = append(out.Spec.Volumes, corev1.Volume{Name: v.Name,
				VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: v.PersistentVolumeClaim}})
		}
	}
	out.Status.Phase = pod.Status.Phase
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			out.Status.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime}}
			break
		}
	}
	trimTrouble(pod, out)
	trimInPlace(pod, out)
	trimHooks(pod, out)
	return out
}

// trimHooks keeps the lifecycle hooks' annotations (hooks.go), the role
// probe's and the reload record (reload.go); their labels are kept with
// the others.
func trimHooks(pod, out *corev1.Pod) {
	for _, key := range []string{v1alpha1.PreUpdateHookLabel, v1alpha1.PreDeleteHookLabel, v1alpha1.SwitchoverHookLabel,
		v1alpha1.PostCreateHookLabel, v1alpha1.PostUpdateHookLabel, v1alpha1.RoleProbeAnnotation, v1alpha1.ReloadHookLabel, v1alpha1.ConfigReloadAnnotation} {
		if v, ok := pod.Annotations[key]; ok {
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[key] = v
		}
	}
}

// trimInPlace keeps what the in-place update reads (podinplace.go) of a
// pod that has the controller's readiness gate or was changed in place,
// and nothing for any other: the gate, the in-place record, the
// generations, and the gate, ContainersReady and resize conditions.
func trimInPlace(pod, out *corev1.Pod) {
	_, changed := pod.Annotations[v1alpha1.InPlaceUpdateAnnotation]
	if !changed && !gated(pod) {
		return
	}
	if gated(pod) {
		out.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: v1alpha1.InPlaceReadinessGate}}
	}
	if changed {
		out.Annotations = map[string]string{v1alpha1.InPlaceUpdateAnnotation: pod.Annotations[v1alpha1.InPlaceUpdateAnnotation]}
	}
	out.Generation, out.Status.ObservedGeneration = pod.Generation, pod.Status.ObservedGeneration
	for _, t := range []corev1.PodConditionType{v1alpha1.InPlaceReadinessGate, corev1.ContainersReady, corev1.PodResizePending, corev1.PodResizeInProgress} {
		if c := podCondition(pod, t); c != nil {
			out.Status.Conditions = append(out.Status.Conditions, corev1.PodCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime})
		}
	}
}

// trimTrouble keeps what Classify reads of a pod in trouble, and nothing
// for a healthy one: the one container status it looks at (name, restart
// count, waiting reason and message), an Unschedulable condition, and a
// Failed pod's reason and message.
func trimTrouble(pod, out *corev1.Pod) {
	if cs := troubledContainer(pod); cs != nil {
		out.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: cs.Name, RestartCount: cs.RestartCount,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: cs.State.Waiting.Reason, Message: cs.State.Waiting.Message}}}}
	}
	if c := unschedulableCondition(pod); c != nil {
		out.Status.Conditions = append(out.Status.Conditions, corev1.PodCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
	}
	if pod.Status.Phase == corev1.PodFailed {
		out.Status.Reason, out.Status.Message = pod.Status.Reason, pod.Status.Message
	}
}

// TrimClaim returns a new claim holding only what Compute reads (its
// metadata as TrimPod keeps it, and its phase), on the same terms as
// TrimPod, and what the InPlace claim update reads: annotations, the
// storage class, storage request and attributes class, and the status
// the resizer and the attributes modifier write (trimStorage).
func TrimClaim(claim *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
	out := &corev1.PersistentVolumeClaim{ObjectMeta: trimMeta(&claim.ObjectMeta)}
	out.Status.Phase = claim.Status.Phase
	trimStorage(claim, out)
	return out
}

func trimStorage(claim, out *corev1.PersistentVolumeClaim) {
	out.Annotations = claim.Annotations
	out.Spec.StorageClassName, out.Spec.VolumeAttributesClassName = claim.Spec.StorageClassName, claim.Spec.VolumeAttributesClassName
	out.Spec.VolumeName = claim.Spec.VolumeName
	if q, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		out.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: q}
	}
	if q, ok := claim.Status.Capacity[corev1.ResourceStorage]; ok {
		out.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: q}
	}
	st := &claim.Status
	out.Status.AllocatedResourceStatuses, out.Status.Conditions = st.AllocatedResourceStatuses, st.Conditions
	out.Status.ModifyVolumeStatus, out.Status.CurrentVolumeAttributesClassName = st.ModifyVolumeStatus, st.CurrentVolumeAttributesClassName
}

func trimMeta(m *metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		CreationTimestamp: m.CreationTimestamp, DeletionTimestamp: m.DeletionTimestamp,
		DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds,
		Labels:                     m.Labels, OwnerReferences: m.OwnerReferences,
	}
}
