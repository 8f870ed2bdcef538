package doctor

import (
	"testing"
	"time"

	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
)

// testNow is the fake clock of the unit tests.
var testNow = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// fakeDoctor is a Doctor on fake clients: objs for the typed client, sets
// (StatefulSet metadata) for the metadata client, and no CRD.
func fakeDoctor(t *testing.T, objs []runtime.Object, sets ...*metav1.PartialObjectMetadata) (*Doctor, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(objs...)
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	metaObjs := make([]runtime.Object, 0, len(sets))
	for _, s := range sets {
		metaObjs = append(metaObjs, s)
	}
	meta := metadatafake.NewSimpleMetadataClient(scheme, metaObjs...)
	d := &Doctor{opts: Options{Since: time.Hour}, host: "https://cluster.example:6443", namespace: "default",
		client: client, meta: meta, ext: apiextensionsfake.NewClientset(), now: func() time.Time { return testNow }, poll: 5 * time.Millisecond}
	return d, client
}

func ago(d time.Duration) metav1.Time { return metav1.NewTime(testNow.Add(-d)) }
