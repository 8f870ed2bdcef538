package integration

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// extendedSets is the typed client of the extended kind in namespace ns.
func extendedSets(t *testing.T, ns string) ostsclient.Interface {
	t.Helper()
	return extendedClient(t).StatefulSets(ns)
}

// extendedClient is the tests' client of the extended kind.
func extendedClient(t *testing.T) *ostsclient.Client {
	t.Helper()
	c, err := ostsclient.NewForConfig(restConfig(200, 400))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// extended is set as the extended kind: the same JSON under
// apps.ordinal.dev/v1alpha1, as a user migrates a manifest by changing its
// apiVersion.
func extended(t *testing.T, set *appsv1.StatefulSet) *v1alpha1.StatefulSet {
	t.Helper()
	out := &v1alpha1.StatefulSet{}
	throughJSON(t, set, out)
	out.APIVersion, out.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.Kind.Kind
	return out
}

// asApps reads an extended set as apps/v1 through their shared JSON; the
// kind's own fields are dropped.
func asApps(t *testing.T, set *v1alpha1.StatefulSet) *appsv1.StatefulSet {
	t.Helper()
	out := &appsv1.StatefulSet{}
	throughJSON(t, set, out)
	return out
}

func throughJSON(t *testing.T, from, to any) {
	t.Helper()
	raw, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, to); err != nil {
		t.Fatal(err)
	}
}
