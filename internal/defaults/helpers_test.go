package defaults

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/features"
)

// byText compares quantities as the API encodes them.
var byText = cmp.Comparer(func(a, b resource.Quantity) bool { return a.String() == b.String() })

// defaulted returns a copy of in defaulted by StatefulSet, after checking
// that the API server's scheme, with the gate set as opts says, defaults
// it to exactly the same object.
func defaulted(t *testing.T, in *appsv1.StatefulSet, opts Options) *appsv1.StatefulSet {
	t.Helper()
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.MaxUnavailableStatefulSet, opts.MaxUnavailable)
	got := in.DeepCopy()
	StatefulSet(got, opts)
	want := in.DeepCopy()
	legacyscheme.Scheme.Default(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("StatefulSet differs from the scheme's defaults (-scheme +ours):\n%s", jsonDiff(t, want, got))
	}
	return got
}

// bareContainer is a container as a manifest may write it.
func bareContainer() corev1.Container {
	return corev1.Container{Name: "app", Image: "nginx:1.25"}
}

// defaultedContainer is bareContainer as the API server stores it.
func defaultedContainer() corev1.Container {
	c := bareContainer()
	c.ImagePullPolicy = corev1.PullIfNotPresent
	c.TerminationMessagePath = "/dev/termination-log"
	c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	return c
}

// setWithPod returns a set whose pod spec is spec.
func setWithPod(spec corev1.PodSpec) *appsv1.StatefulSet {
	set := &appsv1.StatefulSet{}
	set.Spec.Template.Spec = spec
	return set
}

// podWith returns a pod spec with the given containers.
func podWith(containers ...corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{Containers: containers}
}

// quantities returns a resource list of name and value pairs.
func quantities(pairs ...string) corev1.ResourceList {
	list := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		list[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return list
}
