package configrev

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Kind is the kind of object a reference names.
type Kind string

// The kinds of object a template's data comes from.
const (
	ConfigMap Kind = "ConfigMap"
	Secret    Kind = "Secret"
)

// Ref is one object a pod template reads.
type Ref struct {
	Kind Kind   `json:"kind"`
	Name string `json:"name"`
	// Optional is true when every reference to the object is optional:
	// then the pods start without it, as upstream's do.
	Optional bool `json:"-"`
}

// String is "ConfigMap/name".
func (r Ref) String() string { return string(r.Kind) + "/" + r.Name }

// visit calls f with a pointer to every ConfigMap and Secret name the
// template's volumes and containers (init containers included) reference,
// and whether that reference is optional.
func visit(spec *corev1.PodSpec, f func(kind Kind, name *string, optional *bool)) {
	for i := range spec.Volumes {
		visitVolume(&spec.Volumes[i].VolumeSource, f)
	}
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range list {
			visitContainer(&list[i], f)
		}
	}
}

func visitVolume(v *corev1.VolumeSource, f func(Kind, *string, *bool)) {
	if v.ConfigMap != nil {
		f(ConfigMap, &v.ConfigMap.Name, v.ConfigMap.Optional)
	}
	if v.Secret != nil {
		f(Secret, &v.Secret.SecretName, v.Secret.Optional)
	}
	if v.Projected == nil {
		return
	}
	for i := range v.Projected.Sources {
		s := &v.Projected.Sources[i]
		if s.ConfigMap != nil {
			f(ConfigMap, &s.ConfigMap.Name, s.ConfigMap.Optional)
		}
		if s.Secret != nil {
			f(Secret, &s.Secret.Name, s.Secret.Optional)
		}
	}
}

func visitContainer(c *corev1.Container, f func(Kind, *string, *bool)) {
	for i := range c.EnvFrom {
		e := &c.EnvFrom[i]
		if e.ConfigMapRef != nil {
			f(ConfigMap, &e.ConfigMapRef.Name, e.ConfigMapRef.Optional)
		}
		if e.SecretRef != nil {
			f(Secret, &e.SecretRef.Name, e.SecretRef.Optional)
		}
	}
	for i := range c.Env {
		from := c.Env[i].ValueFrom
		if from == nil {
			continue
		}
		if from.ConfigMapKeyRef != nil {
			f(ConfigMap, &from.ConfigMapKeyRef.Name, from.ConfigMapKeyRef.Optional)
		}
		if from.SecretKeyRef != nil {
			f(Secret, &from.SecretKeyRef.Name, from.SecretKeyRef.Optional)
		}
	}
}

// Refs returns the objects of template whose data belongs to the set's
// revisions under spec, sorted by kind and name, each once: the
// referenced ConfigMaps (all of them, or those spec lists) and the
// referenced Secrets spec names. No Secret is a ref unless spec names it.
// A nil spec has none.
func Refs(template *corev1.PodTemplateSpec, spec *v1alpha1.ConfigRevisions) []Ref {
	if spec == nil {
		return nil
	}
	found := map[Ref]bool{} // by kind and name: whether every reference is optional
	visit(template.Spec.DeepCopy(), func(kind Kind, name *string, optional *bool) {
		if *name == "" || !wanted(spec, kind, *name) {
			return
		}
		key := Ref{Kind: kind, Name: *name}
		opt := optional != nil && *optional
		if prev, seen := found[key]; seen {
			opt = opt && prev
		}
		found[key] = opt
	})
	out := make([]Ref, 0, len(found))
	for r, opt := range found {
		r.Optional = opt
		out = append(out, r)
	}
	SortRefs(out)
	return out
}

func wanted(spec *v1alpha1.ConfigRevisions, kind Kind, name string) bool {
	if kind == Secret {
		return slices.Contains(spec.Secrets, name)
	}
	return spec.ConfigMaps != v1alpha1.ConfigMapsListed || slices.Contains(spec.ConfigMapNames, name)
}

// Rewrite returns a copy of template whose references to the objects in
// copies (by kind and name; Optional is not looked at) name their copies
// instead. References to other objects are left as they are.
func Rewrite(template *corev1.PodTemplateSpec, copies map[Ref]string) *corev1.PodTemplateSpec {
	out := template.DeepCopy()
	visit(&out.Spec, func(kind Kind, name *string, _ *bool) {
		if to, ok := copies[Ref{Kind: kind, Name: *name}]; ok {
			*name = to
		}
	})
	return out
}

// SortRefs orders refs by kind and name.
func SortRefs(refs []Ref) {
	slices.SortFunc(refs, func(a, b Ref) int { return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name)) })
}
