package crdinstall

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

func widgets(version string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com", Annotations: map[string]string{"generator": version}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}}},
		},
	}
}

func withConditions(c *apiextensionsv1.CustomResourceDefinition, conds ...apiextensionsv1.CustomResourceDefinitionCondition) *apiextensionsv1.CustomResourceDefinition {
	c.Status.Conditions = conds
	return c
}

var (
	established = apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}
	namesTaken  = apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionFalse,
		Reason: "MultipleNamesNotAllowed", Message: `"widgets" is already in use`}
)

// establishOnWrite makes the fake API server mark every CRD written to it
// with conds, as the real one's controllers do.
func establishOnWrite(client *fake.Clientset, conds ...apiextensionsv1.CustomResourceDefinitionCondition) {
	for _, verb := range []string{"create", "update"} {
		client.PrependReactor(verb, "customresourcedefinitions", func(a clienttesting.Action) (bool, runtime.Object, error) {
			obj := a.(interface{ GetObject() runtime.Object }).GetObject().(*apiextensionsv1.CustomResourceDefinition)
			obj.Status.Conditions = conds
			return false, nil, nil
		})
	}
}

// ensureV1 ensures widgets v1 and returns the stored CRD, whose spec must
// be v1's.
func ensureV1(t *testing.T, client *fake.Clientset) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	if err := Ensure(context.Background(), client, widgets("v1"), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(widgets("v1").Spec, got.Spec); diff != "" {
		t.Errorf("stored spec (-want +got):\n%s", diff)
	}
	return got
}

func TestEnsureCreatesAMissingCRDAndWaitsForEstablished(t *testing.T) {
	client := fake.NewSimpleClientset()
	establishOnWrite(client, established)
	ensureV1(t, client)
}

func TestEnsureUpdatesAnOldCRDAndKeepsOthersAnnotations(t *testing.T) {
	old := withConditions(widgets("v0"), established)
	old.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = "{}"
	old.ResourceVersion = "7"
	client := fake.NewSimpleClientset(old)
	establishOnWrite(client, established)
	got := ensureV1(t, client)
	want := map[string]string{"generator": "v1", "kubectl.kubernetes.io/last-applied-configuration": "{}"}
	if diff := cmp.Diff(want, got.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}

func TestEnsureFailsAtOnceWhenTheNamesAreRefused(t *testing.T) {
	client := fake.NewSimpleClientset()
	establishOnWrite(client, namesTaken)
	began := time.Now()
	err := Ensure(context.Background(), client, widgets("v1"), time.Minute)
	want := `CustomResourceDefinition widgets.example.com did not become Established: names not accepted: MultipleNamesNotAllowed: "widgets" is already in use`
	if err == nil || err.Error() != want {
		t.Fatalf("got error %v, want %q", err, want)
	}
	if waited := time.Since(began); waited > 10*time.Second {
		t.Errorf("it took %s to report refused names, want at once", waited)
	}
}

func TestEnsureReportsTheLastConditionsWhenEstablishedNeverComes(t *testing.T) {
	client := fake.NewSimpleClientset()
	establishOnWrite(client, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: "Installing", Message: "the initial names have not been accepted"})
	err := Ensure(context.Background(), client, widgets("v1"), 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not become Established") || !strings.Contains(err.Error(), "Established=False (Installing: the initial names have not been accepted)") {
		t.Fatalf("got error %v, want one naming the last Established condition", err)
	}
}

func TestEnsureNamesTheCRDAndTheStepWhenTheServerRefusesTheWrite(t *testing.T) {
	for _, verb := range []string{"create", "update"} {
		t.Run(verb, func(t *testing.T) {
			var objects []runtime.Object
			if verb == "update" {
				objects = append(objects, widgets("v0"))
			}
			client := fake.NewSimpleClientset(objects...)
			denied := apierrors.NewForbidden(schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, "widgets.example.com", errors.New("no RBAC rule"))
			client.PrependReactor(verb, "customresourcedefinitions", func(clienttesting.Action) (bool, runtime.Object, error) { return true, nil, denied })
			err := Ensure(context.Background(), client, widgets("v1"), 5*time.Second)
			if err == nil || !strings.HasPrefix(err.Error(), "installing CustomResourceDefinition widgets.example.com: "+verb[:len(verb)-1]+"ing: ") || !apierrors.IsForbidden(err) {
				t.Fatalf("got error %v, want the Forbidden error wrapped as installing … %sing", err, verb[:len(verb)-1])
			}
		})
	}
}
