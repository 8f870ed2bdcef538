package configrev

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Under configRevisions apply Reload a pod's configMap volumes do not
// name the revision's copies: a pod's volumes cannot change, and the
// copies are immutable. Each names instead the pod's own live ConfigMap
// of that object (LiveName), which the controller writes with the data
// of a copy: the pod's revision's when it is created, the new revision's
// when it is reloaded. The kubelet refreshes a configMap volume's files
// from the ConfigMap it names, so the pod sees the new data without a
// restart. Environment variables and Secrets keep naming the copies, so
// a change of them still changes the pod's template and recreates it.

// LiveName is the name of pod's live ConfigMap of the object source:
// "<pod>.<source>", cut to fit. The dot keeps it apart from a copy's
// name (source-<hash>) and reads as "this pod's source".
func LiveName(pod, source string) string {
	name := pod + "." + source
	if len(name) > maxName {
		name = name[:maxName]
	}
	return name
}

// Live is one live ConfigMap of a pod: its name, the object the template
// reads, and the copy whose data it is to hold.
type Live struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Copy   string `json:"copy"`
}

// ReloadRecord is what a pod's v1alpha1.ConfigReloadAnnotation holds:
// its live ConfigMaps hold the data of Revision, written at Time; Pending
// says the application has not been told yet (the reload hook has not
// succeeded), and the pod's revision label moves to Revision only once
// it has.
type ReloadRecord struct {
	Revision string    `json:"revision"`
	Time     time.Time `json:"time"`
	Pending  bool      `json:"pending,omitempty"`
	Live     []Live    `json:"live,omitempty"`
}

// ReloadOf reads the record on a pod's annotations; ok is false when
// there is none (the pod was not made under Reload) or it does not read.
func ReloadOf(annotations map[string]string) (rec ReloadRecord, ok bool) {
	raw, found := annotations[v1alpha1.ConfigReloadAnnotation]
	if !found || json.Unmarshal([]byte(raw), &rec) != nil || rec.Revision == "" {
		return ReloadRecord{}, false
	}
	return rec, true
}

// Encode is the record as the annotation's value.
func (r ReloadRecord) Encode() string {
	data, _ := json.Marshal(r) // a struct of strings, times and bools always encodes
	return string(data)
}

// visitConfigMapVolumes calls f with a pointer to every ConfigMap name
// the template's volumes (configMap and projected sources) read: the
// references a live ConfigMap can stand in for.
func visitConfigMapVolumes(spec *corev1.PodSpec, f func(name *string)) {
	for i := range spec.Volumes {
		v := &spec.Volumes[i].VolumeSource
		if v.ConfigMap != nil {
			f(&v.ConfigMap.Name)
		}
		if v.Projected == nil {
			continue
		}
		for j := range v.Projected.Sources {
			if s := v.Projected.Sources[j].ConfigMap; s != nil {
				f(&s.Name)
			}
		}
	}
}

// LiveVolumes points pod's configMap volumes that read one of records'
// ConfigMap copies at the pod's live ConfigMap of that object, and
// returns the live ConfigMaps it points at, each once. Environment
// references, Secrets and other volumes are left as they are.
func LiveVolumes(pod *corev1.Pod, records []Record) []Live {
	sources := map[string]string{} // by copy name
	for _, r := range records {
		if r.Kind == ConfigMap {
			sources[r.Copy] = r.Name
		}
	}
	var out []Live
	seen := map[string]bool{}
	visitConfigMapVolumes(&pod.Spec, func(name *string) {
		source, ok := sources[*name]
		if !ok {
			return
		}
		live := Live{Name: LiveName(pod.Name, source), Source: source, Copy: *name}
		*name = live.Name
		if !seen[live.Name] {
			seen[live.Name] = true
			out = append(out, live)
		}
	})
	return out
}

// ReloadShape is template as a pod made under Reload sees it: its
// configMap volumes that read a copy of records name the object instead,
// so that two revisions whose templates differ only in those copies have
// the same shape, and a pod can go from one to the other by a reload.
func ReloadShape(template *corev1.PodTemplateSpec, records []Record) *corev1.PodTemplateSpec {
	sources := map[string]string{}
	for _, r := range records {
		if r.Kind == ConfigMap {
			sources[r.Copy] = r.Name
		}
	}
	out := template.DeepCopy()
	visitConfigMapVolumes(&out.Spec, func(name *string) {
		if source, ok := sources[*name]; ok {
			*name = "live:" + source
		}
	})
	return out
}

// LiveConfigMap is pod's live ConfigMap l holding the data of copyObj,
// owned by owner (the set, so that it goes with the set, and outlives
// the pod, whose replacement at the same ordinal reads it again). It is
// never immutable: the kubelet stops watching an immutable ConfigMap.
func LiveConfigMap(l Live, pod *corev1.Pod, set string, owner metav1.OwnerReference, copyObj *corev1.ConfigMap) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: l.Name, Namespace: pod.Namespace,
			Labels: map[string]string{v1alpha1.ConfigLiveOfLabel: labelValue(l.Source), v1alpha1.ConfigSetLabel: labelValue(set),
				v1alpha1.ConfigPodLabel: labelValue(pod.Name)},
			Annotations:     map[string]string{v1alpha1.ConfigCopyAnnotation: l.Copy},
			OwnerReferences: []metav1.OwnerReference{owner}},
		Data: copyObj.Data, BinaryData: copyObj.BinaryData,
	}
}

// IsLiveFor reports whether an object with these labels is a live
// ConfigMap the controller made for set's pod: the controller writes no
// other object of a live ConfigMap's name.
func IsLiveFor(labels map[string]string, set, pod string) bool {
	_, ok := labels[v1alpha1.ConfigLiveOfLabel]
	return ok && labels[v1alpha1.ConfigSetLabel] == labelValue(set) && labels[v1alpha1.ConfigPodLabel] == labelValue(pod)
}

// KeyHashesOf reads a copy's ConfigKeysAnnotation.
func KeyHashesOf(annotations map[string]string) (map[string]string, error) {
	raw, ok := annotations[v1alpha1.ConfigKeysAnnotation]
	if !ok {
		return nil, nil
	}
	var out map[string]string
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("reading %s: %w", v1alpha1.ConfigKeysAnnotation, err)
	}
	return out, nil
}
