package chaos

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
