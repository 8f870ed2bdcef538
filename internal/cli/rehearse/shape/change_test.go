package shape

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

func web() Set {
	return Set{Apps: &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](3), ServiceName: "web",
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "example/app:v1"}},
					InitContainers: []corev1.Container{{Name: "init", Image: "example/init:v1"}}},
			},
		},
	}}
}

func TestAChangeSetsImagesFieldsAndTheNewRevisionsBehaviour(t *testing.T) {
	p, err := Propose(web(), Change{
		Images: []string{"example/app:v2", "init=example/init:v2"},
		Sets: []string{
			"spec.template.metadata.annotations[\"example.com/team\"]=42",
			`spec.template.metadata.labels.tier\.kind=db`,
			"spec.updateStrategy.rollingUpdate.maxUnavailable=2",
			"spec.template.spec.containers[0].env=[{\"name\":\"MODE\",\"value\":\"fast\"}]",
			"spec.minReadySeconds=5",
		},
		Fails: "never-ready",
	})
	if err != nil {
		t.Fatal(err)
	}
	after := p.After.Apps.Spec
	tmpl := after.Template
	switch {
	case tmpl.Spec.Containers[0].Image != "example/app:v2", tmpl.Spec.InitContainers[0].Image != "example/init:v2":
		t.Errorf("images %s, %s", tmpl.Spec.Containers[0].Image, tmpl.Spec.InitContainers[0].Image)
	case tmpl.Annotations["example.com/team"] != "42", tmpl.Labels["tier.kind"] != "db":
		t.Errorf("annotations %v, labels %v; want strings under the quoted and the escaped key", tmpl.Annotations, tmpl.Labels)
	case after.UpdateStrategy.RollingUpdate.MaxUnavailable.IntValue() != 2, after.MinReadySeconds != 5:
		t.Errorf("strategy %+v, minReadySeconds %d", after.UpdateStrategy, after.MinReadySeconds)
	case len(tmpl.Spec.Containers[0].Env) != 1 || tmpl.Spec.Containers[0].Env[0].Value != "fast":
		t.Errorf("env %+v", tmpl.Spec.Containers[0].Env)
	case tmpl.Annotations[BehaviorAnnotation] != "never-ready":
		t.Errorf("the new revision does not play never-ready: %v", tmpl.Annotations)
	}
	if before := p.Before.Apps.Spec.Template; before.Spec.Containers[0].Image != "example/app:v1" || before.Annotations != nil {
		t.Errorf("the change changed the set before it: %+v", before)
	}
	if len(p.Words) != 7 || p.Words[0] != "image example/app:v2" {
		t.Errorf("words %q", p.Words)
	}
}

func TestABadChangeIsRefusedNamingWhatIsWrong(t *testing.T) {
	for _, tt := range []struct {
		change Change
		want   string
	}{
		{Change{Images: []string{"nope=example/x"}}, `--image nope=example/x: the template has no container "nope" (it has app, init)`},
		{Change{Images: []string{"app="}}, "no image"},
		{Change{Sets: []string{"spec.replica=3"}}, `--set spec.replica=3: the changed set does not read as a StatefulSet: json: unknown field "replica"`},
		{Change{Sets: []string{"spec.replicas=many"}}, "--set spec.replicas=many: the changed set does not read as a StatefulSet"},
		{Change{Sets: []string{"status.replicas=1"}}, "status is not the change's to set"},
		{Change{Sets: []string{"metadata.name=db"}}, "name and namespace are not the change's to set"},
		{Change{Sets: []string{"replicas=1"}}, `no field "replicas" at the root`},
		{Change{Sets: []string{"spec.template.spec.containers[3].image=x"}}, "spec.template.spec.containers has no item 3"},
		{Change{Sets: []string{"spec.template.spec.containers[x].image=x"}}, "[x] is neither an index nor a quoted key"},
		{Change{Sets: []string{"spec..replicas=1"}}, "empty key"},
		{Change{Sets: []string{"spec.replicas"}}, "want PATH=VALUE"},
		{Change{Fails: "slow"}, `--new-revision-fails "slow": want one of never-ready, crash-loop, fail, image-pull-error`},
		{Change{ManifestName: "x.yaml", Manifest: []byte("apiVersion: v1\nkind: Service\nmetadata: {name: web}\n")}, "-f x.yaml: no StatefulSet"},
		{Change{ManifestName: "x.yaml", Manifest: []byte("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: web}\nspec: {replica: 2}\n")}, `-f x.yaml: reading StatefulSet web: error unmarshaling JSON: while decoding JSON: json: unknown field "replica"`},
	} {
		_, err := Propose(web(), tt.change)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Propose(%+v) = %v, want an error containing %q", tt.change, err, tt.want)
		}
	}
	two := web()
	two.Apps.Spec.Template.Spec.Containers = append(two.Apps.Spec.Template.Spec.Containers, corev1.Container{Name: "side", Image: "x"})
	if _, err := Propose(two, Change{Images: []string{"example/app:v2"}}); err == nil || !strings.Contains(err.Error(), "has 2 containers (app, side, init): name one") {
		t.Errorf("an unnamed image for two containers: %v", err)
	}
}

const manifest = `apiVersion: v1
kind: Service
metadata: {name: web}
spec: {clusterIP: None, selector: {app: web}}
---
apiVersion: apps.ordinal.dev/v1alpha1
kind: StatefulSet
metadata: {name: other}
spec: {replicas: 1, selector: {matchLabels: {app: other}}, template: {metadata: {labels: {app: other}}, spec: {containers: [{name: x, image: x}]}}}
---
apiVersion: apps.ordinal.dev/v1alpha1
kind: StatefulSet
metadata: {name: web}
spec:
  replicas: 5
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: "example/app:v3"}]}
  updateStrategy:
    rollingUpdate: {onFailure: Rollback}
`

func TestAManifestOfTheOtherKindGivesItsSpecConvertedAndSaysWhatWasLost(t *testing.T) {
	p, err := Propose(web(), Change{ManifestName: "web.yaml", Manifest: []byte(manifest)})
	if err != nil {
		t.Fatal(err)
	}
	if p.After.Apps == nil || *p.After.Apps.Spec.Replicas != 5 || p.After.Apps.Spec.Template.Spec.Containers[0].Image != "example/app:v3" {
		t.Fatalf("after %+v, want the apps/v1 set with the manifest's web's spec", p.After)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "apps/v1 drops spec.updateStrategy.rollingUpdate.onFailure is Rollback") {
		t.Errorf("notes %q, want the dropped onFailure named", p.Notes)
	}
	if p.After.Apps.Name != "web" || p.Words[0] != "the spec of web.yaml" {
		t.Errorf("name %s, words %q", p.After.Apps.Name, p.Words)
	}
}

func TestAnAppsV1SetPlaysTheExtendedKindWithTheRehearsalsFailurePolicy(t *testing.T) {
	ext, notes, err := web().As(setops.ExtendedKind, Extras{OnFailure: v1alpha1.FailureRollback, ProgressDeadline: 45e9})
	if err != nil || notes != nil {
		t.Fatalf("As = %v, %q", err, notes)
	}
	s := ext.Extended.Spec
	if *s.ProgressDeadlineSeconds != 45 || s.UpdateStrategy.RollingUpdate.OnFailure != v1alpha1.FailureRollback || s.Template.Spec.Containers[0].Image != "example/app:v1" {
		t.Errorf("extended spec %+v", s)
	}
	back, notes, err := ext.As(setops.AppsV1, Extras{})
	if err != nil || back.Apps == nil || len(notes) != 2 || !strings.Contains(notes[0], "progressDeadlineSeconds is 45") || !strings.Contains(notes[1], "onFailure is Rollback") {
		t.Errorf("back to apps/v1: %v, %q", err, notes)
	}
}

func TestACopyNeverCallsTheSourcesHookReceivers(t *testing.T) {
	ext, _, err := web().As(setops.ExtendedKind, Extras{})
	if err != nil {
		t.Fatal(err)
	}
	ext.Extended.Spec.Lifecycle = &v1alpha1.Lifecycle{
		PreUpdate:  &v1alpha1.LifecycleHook{HTTP: &v1alpha1.HTTPHook{URL: "https://db-operator.prod.example/drain"}, TimeoutSeconds: 60},
		PreDelete:  &v1alpha1.LifecycleHook{Service: &v1alpha1.ServiceHook{Name: "operator"}},
		PostCreate: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}},
	}
	got, notes := ext.Disarm()
	l := got.Extended.Spec.Lifecycle
	if l.PreUpdate.HTTP != nil || l.PreUpdate.Handshake == nil || l.PreUpdate.TimeoutSeconds != 60 || l.PreDelete.Service != nil || l.PreDelete.Handshake == nil {
		t.Errorf("hooks %+v %+v, want handshakes with their timeouts", l.PreUpdate, l.PreDelete)
	}
	if ext.Extended.Spec.Lifecycle.PreUpdate.HTTP == nil {
		t.Error("Disarm changed the set it was given")
	}
	if len(notes) != 3 || !strings.Contains(notes[0], "preUpdate hook is not called in the copy") || !strings.Contains(notes[2], "postCreate handshake is answered Done at once") {
		t.Errorf("notes %q", notes)
	}
	if same, notes := web().Disarm(); same.Apps == nil || notes != nil {
		t.Errorf("an apps/v1 set: %+v, %q", same, notes)
	}
}
