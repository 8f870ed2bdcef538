package revision_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// upstreamRaw133 is the revision data of upstream's compatibility test
// (stateful_set_compatibility_test.go), written by a 1.33 controller.
const upstreamRaw133 = `{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":"value"},"creationTimestamp":null,"labels":{"app":"foo"}},"spec":{"containers":[{"image":"test","imagePullPolicy":"Always","name":"test","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}`

func TestHash(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		collision *int32
		want      string
	}{
		{"the upstream compatibility revision hashes to c77f6d978", upstreamRaw133, ptr.To[int32](0), "c77f6d978"},
		{"a nil collision count hashes like zero", upstreamRaw133, nil, "c77f6d978"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := revision.Hash([]byte(tt.data), tt.collision); got != tt.want {
				t.Errorf("Hash() = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("a collision count changes the hash and only uses the safe alphabet", func(t *testing.T) {
		got := revision.Hash([]byte(upstreamRaw133), ptr.To[int32](1))
		if got == "c77f6d978" || strings.Trim(got, "bcdfghjklmnpqrstvwxz2456789") != "" || len(got) > 10 {
			t.Errorf("Hash(collision 1) = %q", got)
		}
	})
}

// compatSet is the set upstream's compatibility test stores, as a 1.34+
// API server returns it.
func compatSet() *appsv1.StatefulSet {
	set := testgen.StatefulSet("foo")
	set.Spec.Template.Labels = map[string]string{"app": "foo"}
	set.Spec.Template.Annotations = map[string]string{"test": "value"}
	set.Spec.Template.Spec.Containers = []corev1.Container{{
		Name: "test", Image: "test", ImagePullPolicy: corev1.PullAlways,
		TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}}
	return set
}

// realisticSet is a defaulted set with the fields a production template has:
// ports, resources, env, probes, mounts, a restart annotation and an
// HTML-sensitive character that encoding/json escapes.
func realisticSet() *appsv1.StatefulSet {
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.ClaimTemplates("data"),
		testgen.TemplateAnnotation("kubectl.kubernetes.io/restartedAt", "2026-01-01T00:00:00Z"))
	c := &set.Spec.Template.Spec.Containers[0]
	c.Name, c.Image = "nginx", "registry.k8s.io/nginx-slim:0.27"
	c.Ports = []corev1.ContainerPort{{Name: "web", ContainerPort: 80, Protocol: corev1.ProtocolTCP}}
	c.Env = []corev1.EnvVar{{Name: "GREETING", Value: "a<b&c"}}
	c.Resources.Requests = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi"),
	}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/usr/share/nginx/html"}}
	c.ReadinessProbe = &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: "/", Port: intstr.FromInt32(80), Scheme: corev1.URISchemeHTTP,
		}},
		TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
	}
	return set
}

func TestPatch(t *testing.T) {
	tests := []struct {
		name string
		set  *appsv1.StatefulSet
		want string
	}{{
		name: "the compatibility set encodes like 1.34+, without creationTimestamp",
		set:  compatSet(),
		want: strings.Replace(upstreamRaw133, `"creationTimestamp":null,`, "", 1),
	}, {
		name: "a realistic defaulted set keeps only the template, keys sorted, HTML escaped",
		set:  realisticSet(),
		want: `{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-01-01T00:00:00Z"},"labels":{"app":"web"}},"spec":{"containers":[{"env":[{"name":"GREETING","value":"a\u003cb\u0026c"}],"image":"registry.k8s.io/nginx-slim:0.27","imagePullPolicy":"IfNotPresent","name":"nginx","ports":[{"containerPort":80,"name":"web","protocol":"TCP"}],"readinessProbe":{"failureThreshold":3,"httpGet":{"path":"/","port":80,"scheme":"HTTP"},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1},"resources":{"requests":{"cpu":"100m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","volumeMounts":[{"mountPath":"/usr/share/nginx/html","name":"data"}]}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := revision.Patch(tt.set)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Patch() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// codecPatch is upstream's getPatch pipeline with the apimachinery apps/v1
// codec in place of plain encoding/json.
func codecPatch(t *testing.T, set *appsv1.StatefulSet) []byte {
	t.Helper()
	data, err := runtime.Encode(scheme.Codecs.LegacyCodec(appsv1.SchemeGroupVersion), set)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	template := raw["spec"].(map[string]any)["template"].(map[string]any)
	template["$patch"] = "replace"
	out, err := json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPatchMatchesTheAPIMachineryCodec(t *testing.T) {
	sets := map[string]*appsv1.StatefulSet{
		"minimal":       testgen.StatefulSet("web"),
		"compatibility": compatSet(),
		"realistic":     realisticSet(),
		"huge int64": testgen.StatefulSet("big", func(s *appsv1.StatefulSet) {
			s.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1<<62 + 1)
		}),
	}
	for name, set := range sets {
		t.Run(name+" set encodes the same bytes as the codec pipeline", func(t *testing.T) {
			got, err := revision.Patch(set)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(codecPatch(t, set)), string(got)); diff != "" {
				t.Errorf("Patch() differs from codec pipeline (-codec +ours):\n%s", diff)
			}
		})
	}
}

func TestName(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct {
		name, set, want string
	}{
		{"a short set name is used whole", "web", "web-c77f6d978"},
		{"a set name longer than 223 bytes is cut", long, long[:223] + "-c77f6d978"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := revision.Name(tt.set, "c77f6d978"); got != tt.want {
				t.Errorf("Name() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	set := compatSet()
	set.Annotations = map[string]string{"kubernetes.io/change-cause": "kubectl set image"}
	set.Spec.Template.Annotations = nil
	data, err := revision.Patch(set)
	if err != nil {
		t.Fatal(err)
	}
	hash := revision.Hash(data, ptr.To[int32](0))
	want := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: "foo-" + hash, Namespace: testgen.Namespace,
			Labels:          map[string]string{"app": "foo", revision.HashLabel: hash},
			Annotations:     map[string]string{"kubernetes.io/change-cause": "kubectl set image"},
			OwnerReferences: []metav1.OwnerReference{testgen.ControllerRef("apps/v1", "StatefulSet", "foo", set.UID)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: 7,
	}
	got, err := revision.New(set, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("New() mismatch (-want +got):\n%s", diff)
	}
	t.Run("labels and annotations are copies, not the set's maps", func(t *testing.T) {
		got.Labels["app"], got.Annotations["kubernetes.io/change-cause"] = "changed", "changed"
		if set.Spec.Template.Labels["app"] != "foo" || set.Annotations["kubernetes.io/change-cause"] == "changed" {
			t.Error("New() aliased the set's maps")
		}
	})
	t.Run("a collision retry keeps the data and the first hash label, and changes the name", func(t *testing.T) {
		retry := revision.ForCollision(set.Name, got, 1)
		if retry.Name != "foo-"+revision.Hash(data, ptr.To[int32](1)) || !bytes.Equal(retry.Data.Raw, data) || retry.Labels[revision.HashLabel] != want.Labels[revision.HashLabel] {
			t.Errorf("ForCollision() = %s (hash label %s), data equal %v", retry.Name, retry.Labels[revision.HashLabel], bytes.Equal(retry.Data.Raw, data))
		}
		if retry.Revision != got.Revision {
			t.Errorf("ForCollision() renumbered the revision to %d", retry.Revision)
		}
	})
}

func TestApply(t *testing.T) {
	old := testgen.StatefulSet("web", testgen.Image("app:1"), testgen.TemplateAnnotation("a", "1"))
	rev := testgen.RevisionOf(old, 1)
	live := testgen.StatefulSet("web", testgen.Image("app:2"), testgen.Replicas(5), testgen.Partition(2))
	got, err := revision.Apply(live, rev)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the template is the revision's, replaced wholesale", func(t *testing.T) {
		if diff := cmp.Diff(old.Spec.Template, got.Spec.Template); diff != "" {
			t.Errorf("template mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("everything outside the template is the live set's", func(t *testing.T) {
		want := live.DeepCopy()
		want.Spec.Template = old.Spec.Template
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("set mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("metadata, status and type in the data are ignored; only the spec is restored", func(t *testing.T) {
		odd := rev.DeepCopy()
		odd.Data.Raw = []byte(`{"apiVersion":"v0fake","kind":"NotAStatefulSet",` +
			`"metadata":{"namespace":"elsewhere","name":"other","uid":"not-the-sets","labels":{"injected":"true"},"annotations":{"injected":"true"}},` +
			`"status":{"observedGeneration":100,"collisionCount":99},` + string(rev.Data.Raw[1:]))
		got, err := revision.Apply(live, odd)
		if err != nil {
			t.Fatal(err)
		}
		want := live.DeepCopy()
		want.Spec.Template = old.Spec.Template
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("set mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("corrupt revision data is an error, not a panic", func(t *testing.T) {
		bad := rev.DeepCopy()
		bad.Data.Raw = []byte(`{"spec":`)
		if _, err := revision.Apply(live, bad); err == nil {
			t.Error("Apply() with corrupt data returned no error")
		}
	})
}

// as133 rewrites a revision's data the way a 1.33 controller serialized it.
func as133(rev *appsv1.ControllerRevision) *appsv1.ControllerRevision {
	old := rev.DeepCopy()
	old.Data.Raw = bytes.Replace(old.Data.Raw, []byte(`"metadata":{`), []byte(`"metadata":{"creationTimestamp":null,`), 1)
	return old
}

func TestEquality(t *testing.T) {
	set := testgen.StatefulSet("web")
	current := testgen.RevisionOf(set, 1)
	legacy := as133(current)
	other := testgen.RevisionOf(testgen.StatefulSet("web", testgen.Image("app:2")), 2)
	tests := []struct {
		name            string
		a, b            *appsv1.ControllerRevision
		equal, semEqual bool
	}{
		{"a revision equals itself", current, current, true, true},
		{"a 1.33 serialization is not byte-equal but is semantically equal", legacy, current, false, true},
		{"another template is neither", other, current, false, false},
		{"nil equals only nil", nil, nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := revision.Equal(tt.a, tt.b); got != tt.equal {
				t.Errorf("Equal() = %v, want %v", got, tt.equal)
			}
			if got := revision.SemanticallyEqual(set, tt.a); got != tt.semEqual {
				t.Errorf("SemanticallyEqual() = %v, want %v", got, tt.semEqual)
			}
		})
	}
}
