package planner

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// templateChange is what it takes to bring a pod from one revision's
// template to another's without recreating it.
type templateChange struct {
	// images are the containers' new images by container name.
	images map[string]string
	// resources are the containers' new resources by container name, to
	// write through the pod's resize subresource.
	resources map[string]corev1.ResourceRequirements
	// labels and annotations are the template's keys to set, and to
	// remove (nil): keys the old template had and the new one has not.
	// Keys others put on the pod are left alone.
	labels, annotations map[string]*string
	// impossible says why the change cannot be made in place; empty when
	// it can.
	impossible []string
}

// spec reports whether the change touches the pod's spec, which the
// kubelet then has to act on.
func (c templateChange) spec() bool {
	return len(c.images) > 0 || len(c.resources) > 0
}

func (c templateChange) empty() bool {
	return !c.spec() && len(c.labels) == 0 && len(c.annotations) == 0
}

// diffTemplates compares two revisions' pod templates. What a pod update
// may change in place is the containers' images (the API server allows
// an image change on a running pod), their cpu and memory requests and
// limits (the resize subresource, without changing the pod's QoS class or
// adding or removing a resource), and the template's labels and
// annotations. Anything else makes the change impossible in place.
func diffTemplates(from, to *corev1.PodTemplateSpec) templateChange {
	c := templateChange{labels: mapChange(from.Labels, to.Labels), annotations: mapChange(from.Annotations, to.Annotations)}
	if len(from.Spec.Containers) != len(to.Spec.Containers) {
		c.impossible = append(c.impossible, fmt.Sprintf("the number of containers changes from %d to %d", len(from.Spec.Containers), len(to.Spec.Containers)))
		return c
	}
	rest := from.Spec.DeepCopy()
	for i := range to.Spec.Containers {
		old, upd := &rest.Containers[i], &to.Spec.Containers[i]
		if old.Name != upd.Name {
			c.impossible = append(c.impossible, fmt.Sprintf("container %s is replaced by %s", old.Name, upd.Name))
			return c
		}
		if old.Image != upd.Image {
			c.images = setKey(c.images, upd.Name, upd.Image)
			old.Image = upd.Image
		}
		if !apiequality.Semantic.DeepEqual(old.Resources, upd.Resources) {
			if why := resizable(old.Resources, upd.Resources); why != "" {
				c.impossible = append(c.impossible, fmt.Sprintf("container %s: %s", upd.Name, why))
			} else {
				c.resources = setKey(c.resources, upd.Name, *upd.Resources.DeepCopy())
			}
			old.Resources = *upd.Resources.DeepCopy()
		}
	}
	if len(c.resources) > 0 && qosClass(from.Spec.Containers) != qosClass(to.Spec.Containers) {
		c.impossible = append(c.impossible, fmt.Sprintf("the pod's QoS class changes from %s to %s", qosClass(from.Spec.Containers), qosClass(to.Spec.Containers)))
	}
	if fields := differentFields(rest, &to.Spec); len(fields) > 0 {
		c.impossible = append(c.impossible, "spec."+strings.Join(fields, ", spec.")+" changed")
	}
	return c
}

func setKey[V any](m map[string]V, k string, v V) map[string]V {
	if m == nil {
		m = map[string]V{}
	}
	m[k] = v
	return m
}

// mapChange is the keys to set (new or changed values) and to remove (nil)
// to go from one template's map to another's.
func mapChange(from, to map[string]string) map[string]*string {
	var out map[string]*string
	for k, v := range to {
		if old, ok := from[k]; !ok || old != v {
			out = setKey(out, k, &v)
		}
	}
	for k := range from {
		if _, ok := to[k]; !ok {
			out = setKey[*string](out, k, nil)
		}
	}
	return out
}

// resizable says why a container's resources cannot go from one value to
// the other through the resize subresource, or "" when they can: only cpu
// and memory change, and no request or limit appears or disappears.
func resizable(from, to corev1.ResourceRequirements) string {
	for _, pair := range [][2]corev1.ResourceList{{from.Requests, to.Requests}, {from.Limits, to.Limits}} {
		if !slices.Equal(slices.Sorted(maps.Keys(pair[0])), slices.Sorted(maps.Keys(pair[1]))) {
			return "a resource request or limit is added or removed"
		}
		for name, q := range pair[1] {
			if old := pair[0][name]; old.Cmp(q) != 0 && name != corev1.ResourceCPU && name != corev1.ResourceMemory {
				return fmt.Sprintf("%s changes, and only cpu and memory can be resized in place", name)
			}
		}
	}
	if len(from.Claims) != len(to.Claims) || !apiequality.Semantic.DeepEqual(from.Claims, to.Claims) {
		return "resource claims change"
	}
	return ""
}

// qosClass is the QoS class of a pod with these containers, as the
// kubelet computes it from cpu and memory: Guaranteed when every container
// has both limits and requests equal to them, BestEffort when none has
// any, Burstable otherwise.
func qosClass(containers []corev1.Container) corev1.PodQOSClass {
	some, guaranteed := false, true
	for _, c := range containers {
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, hasReq := c.Resources.Requests[name]
			limit, hasLimit := c.Resources.Limits[name]
			some = some || hasReq || hasLimit
			if !hasLimit || (hasReq && req.Cmp(limit) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !some:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

// differentFields names the fields, by their JSON names, in which two pod
// specs differ; containers are named one by one.
func differentFields(a, b *corev1.PodSpec) []string {
	var out []string
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		if apiequality.Semantic.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			continue
		}
		name, _, _ := strings.Cut(va.Type().Field(i).Tag.Get("json"), ",")
		if name == "containers" {
			for j := range a.Containers {
				if !apiequality.Semantic.DeepEqual(a.Containers[j], b.Containers[j]) {
					out = append(out, fmt.Sprintf("containers[%s] (other than image and resources)", a.Containers[j].Name))
				}
			}
			continue
		}
		out = append(out, name)
	}
	return out
}

// inPlacePatch is the strategic merge patch that makes a pod the new
// template's in place: its images, the template's labels and annotations,
// the revision label, the in-place record when the spec changes, and the
// pod's UID, so that the patch fails on a pod of the same name created
// since.
func inPlacePatch(pod *corev1.Pod, c templateChange, revision, record string) ([]byte, error) {
	labels := map[string]any{appsv1.StatefulSetRevisionLabel: revision}
	for k, v := range c.labels {
		labels[k] = v
	}
	meta := map[string]any{"uid": pod.UID, "labels": labels}
	annotations := map[string]any{}
	for k, v := range c.annotations {
		annotations[k] = v
	}
	if record != "" {
		annotations[v1alpha1.InPlaceUpdateAnnotation] = record
		// The pod's spec changes: its preUpdate hook has served.
		if _, ok := pod.Labels[v1alpha1.PreUpdateHookLabel]; ok {
			labels[v1alpha1.PreUpdateHookLabel] = nil
		}
		if _, ok := pod.Annotations[v1alpha1.PreUpdateHookLabel]; ok {
			annotations[v1alpha1.PreUpdateHookLabel] = nil
		}
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	patch := map[string]any{"metadata": meta}
	if len(c.images) > 0 {
		var containers []map[string]any
		for _, name := range slices.Sorted(maps.Keys(c.images)) {
			containers = append(containers, map[string]any{"name": name, "image": c.images[name]})
		}
		patch["spec"] = map[string]any{"containers": containers}
	}
	return json.Marshal(patch)
}

// resizePatch is the strategic merge patch for the pod's resize
// subresource.
func resizePatch(c templateChange) ([]byte, error) {
	var containers []map[string]any
	for _, name := range slices.Sorted(maps.Keys(c.resources)) {
		containers = append(containers, map[string]any{"name": name, "resources": c.resources[name]})
	}
	return json.Marshal(map[string]any{"spec": map[string]any{"containers": containers}})
}
