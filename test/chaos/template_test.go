package chaos

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// template is what the ops vary in a set's pod template.
type template struct {
	image    int
	behavior string // sim.ordinal.dev/behavior, "" for none
	cpu      int    // the container's cpu request in millicores, 0 for none
}

func (t template) String() string {
	s := image(t.image)
	if t.cpu != 0 {
		s += fmt.Sprintf(" cpu %dm", t.cpu)
	}
	if t.behavior == "" {
		return s
	}
	return s + " with behavior " + t.behavior
}

// setTemplate puts t into a pod template: the image, and the behavior
// annotation or none.
func setTemplate(pt *corev1.PodTemplateSpec, t template) {
	c := &pt.Spec.Containers[0]
	c.Image = image(t.image)
	delete(c.Resources.Requests, corev1.ResourceCPU)
	if t.cpu != 0 {
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		c.Resources.Requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(t.cpu), resource.DecimalSI)
	}
	if len(c.Resources.Requests) == 0 {
		c.Resources.Requests = nil
	}
	c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == behaviorEnv })
	if t.behavior == "" {
		delete(pt.Annotations, behaviorKey)
		return
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: behaviorEnv, Value: t.behavior})
	if pt.Annotations == nil {
		pt.Annotations = map[string]string{}
	}
	pt.Annotations[behaviorKey] = t.behavior
}

// behaviorEnv repeats the behavior in the container's environment, as a
// bad release changes the container and not only an annotation: a change
// of behavior then cannot be made in place, and a set updating in place
// recreates its pods for it, while an image change alone is made in place.
const behaviorEnv = "CHAOS_BEHAVIOR"

// templateOf reads t back from a pod template.
func templateOf(pt *corev1.PodTemplateSpec) template {
	t := template{behavior: pt.Annotations[behaviorKey]}
	if q, ok := pt.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]; ok {
		t.cpu = int(q.MilliValue())
	}
	_, _ = fmt.Sscanf(pt.Spec.Containers[0].Image, "registry.k8s.io/nginx-slim:0.%d", &t.image)
	return t
}

func TestATemplateReadsBackAsWritten(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		t           template
	}{
		{"plain", nil, template{image: 9}},
		{"broken", nil, template{image: 10, behavior: behaviors[1]}},
		{"fixed", map[string]string{behaviorKey: behaviors[0], "other": "kept"}, template{image: 11}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pt := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: tc.annotations},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image(8)}}}}
			setTemplate(pt, tc.t)
			if diff := cmp.Diff(tc.t, templateOf(pt), cmp.AllowUnexported(template{})); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
			if tc.annotations != nil && pt.Annotations["other"] != "kept" {
				t.Errorf("annotations %v lost one that is not the behavior", pt.Annotations)
			}
		})
	}
}
