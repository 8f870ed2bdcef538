package invariant

import (
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// The annotations and labels RuleConfigCopies reads, spelled out here as
// the documentation spells them (docs/config-revisions.md), not taken
// from the code it judges.
const (
	configRefsAnnotation   = "apps.ordinal.dev/config-refs"
	configReloadAnnotation = "apps.ordinal.dev/config-reload"
	configCopyAnnotation   = "apps.ordinal.dev/config-copy"
	configLiveOfLabel      = "apps.ordinal.dev/config-live-of"
)

// revisionRecord is one object a revision says its template reads
// through a copy.
type revisionRecord struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Copy string `json:"copy"`
}

// podReload is what a pod's reload annotation says.
type podReload struct {
	Revision string `json:"revision"`
	Pending  bool   `json:"pending"`
	Live     []struct {
		Name   string `json:"name"`
		Source string `json:"source"`
	} `json:"live"`
}

// applyConfigMap keeps each ConfigMap's metadata, which RuleConfigCopies
// reads of live ConfigMaps.
func (r *replay) applyConfigMap(ev Event, cm *corev1.ConfigMap) {
	k := key(cm.Namespace, cm.Name)
	if ev.Type == watch.Deleted {
		delete(r.configMaps, k)
		return
	}
	r.configMaps[k] = &corev1.ConfigMap{ObjectMeta: *cm.ObjectMeta.DeepCopy()}
}

// judgeConfigCopies checks RuleConfigCopies for one version of a pod of
// an extended set.
func (r *replay) judgeConfigCopies(ev Event, st *setTrack, pod *corev1.Pod) {
	if st == nil || st.ext == nil {
		return
	}
	rev := pod.Labels[RevisionLabel]
	own, ok := r.recordsOf(pod.Namespace, rev)
	if !ok {
		return // a revision the history has not shown: nothing to judge by
	}
	copies := r.setCopies(pod.Namespace, st.uid)
	k := key(pod.Namespace, pod.Name)
	for _, ref := range referencedConfig(&pod.Spec) {
		source, isCopy := copies[ref]
		if _, name, _ := strings.Cut(ref, "/"); isCopy && own[source] != name {
			r.violate(RuleConfigCopies, k, ev, "labelled revision %s, it reads %s, a copy of %s that %s does not hold (its copy: %q)", rev, ref, source, rev, own[source])
		}
	}
	r.judgeLiveConfig(ev, k, pod, rev, own)
}

// judgeLiveConfig checks the live ConfigMaps of a pod whose reload
// record says it has settled at its revision.
func (r *replay) judgeLiveConfig(ev Event, k string, pod *corev1.Pod, rev string, own map[string]string) {
	var rec podReload
	if raw, ok := pod.Annotations[configReloadAnnotation]; !ok || json.Unmarshal([]byte(raw), &rec) != nil || rec.Pending || rec.Revision != rev {
		return
	}
	sources := map[string]string{}
	for _, l := range rec.Live {
		sources[l.Name] = l.Source
	}
	for _, name := range mountedConfigMaps(&pod.Spec) {
		cm := r.configMaps[key(pod.Namespace, name)]
		if cm == nil {
			continue
		}
		if _, live := cm.Labels[configLiveOfLabel]; !live {
			continue
		}
		source := sources[name]
		if source == "" {
			source = cm.Labels[configLiveOfLabel]
		}
		if held, want := cm.Annotations[configCopyAnnotation], own["ConfigMap/"+source]; held != want {
			r.violate(RuleConfigCopies, k, ev, "settled at revision %s, its live ConfigMap %s holds copy %s of %s, not %s's %q", rev, name, held, source, rev, want)
		}
	}
}

// recordsOf is what revision name records: by object ("Kind/name"), its
// copy's name; ok is false when the revision is not observed.
func (r *replay) recordsOf(ns, name string) (map[string]string, bool) {
	rev := r.revs[key(ns, name)]
	if rev == nil {
		return nil, false
	}
	out := map[string]string{}
	var records []revisionRecord
	if raw, ok := rev.Annotations[configRefsAnnotation]; ok && json.Unmarshal([]byte(raw), &records) == nil {
		for _, rr := range records {
			out[rr.Kind+"/"+rr.Name] = rr.Copy
		}
	}
	return out, true
}

// setCopies is every copy some observed revision of the set (by its
// controller reference) records: by "Kind/copy", its "Kind/object".
func (r *replay) setCopies(ns string, set types.UID) map[string]string {
	out := map[string]string{}
	for _, rev := range r.revs {
		if ref := metav1.GetControllerOf(rev); rev.Namespace != ns || ref == nil || ref.UID != set {
			continue
		}
		var records []revisionRecord
		if raw, ok := rev.Annotations[configRefsAnnotation]; ok && json.Unmarshal([]byte(raw), &records) == nil {
			for _, rr := range records {
				out[rr.Kind+"/"+rr.Copy] = rr.Kind + "/" + rr.Name
			}
		}
	}
	return out
}

// referencedConfig is every ConfigMap and Secret a pod spec reads, as
// "Kind/name": volumes, projected sources, envFrom and env valueFrom, of
// init containers and containers.
func referencedConfig(spec *corev1.PodSpec) []string {
	var out []string
	add := func(kind, name string) { out = append(out, kind+"/"+name) }
	for _, v := range spec.Volumes {
		if v.ConfigMap != nil {
			add("ConfigMap", v.ConfigMap.Name)
		}
		if v.Secret != nil {
			add("Secret", v.Secret.SecretName)
		}
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					add("ConfigMap", s.ConfigMap.Name)
				}
				if s.Secret != nil {
					add("Secret", s.Secret.Name)
				}
			}
		}
	}
	for _, c := range append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...) {
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil {
				add("ConfigMap", e.ConfigMapRef.Name)
			}
			if e.SecretRef != nil {
				add("Secret", e.SecretRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				add("ConfigMap", e.ValueFrom.ConfigMapKeyRef.Name)
			}
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				add("Secret", e.ValueFrom.SecretKeyRef.Name)
			}
		}
	}
	return out
}

// mountedConfigMaps is the ConfigMaps a pod spec's volumes mount, by name.
func mountedConfigMaps(spec *corev1.PodSpec) []string {
	var out []string
	for _, ref := range referencedConfig(&corev1.PodSpec{Volumes: spec.Volumes}) {
		if name, ok := strings.CutPrefix(ref, "ConfigMap/"); ok {
			out = append(out, name)
		}
	}
	return out
}
