package controller

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
)

// liveFixture is a set's copy of ConfigMap conf and pod web-1 whose live
// ConfigMap should hold it.
func liveFixture(t *testing.T) (*appsv1.StatefulSet, *corev1.Pod, *corev1.ConfigMap, configrev.Live) {
	t.Helper()
	set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "set-uid"}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop"}}
	src := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "conf", Namespace: "shop"}, Data: map[string]string{"k": "2"}}
	cp, err := configrev.ConfigMapCopy(src, set.Name)
	if err != nil {
		t.Fatal(err)
	}
	return set, pod, cp, configrev.Live{Name: configrev.LiveName(pod.Name, "conf"), Source: "conf", Copy: cp.Name}
}

// configMapCreates counts the ConfigMap creates among client's actions.
func configMapCreates(client *fake.Clientset) (n int) {
	for _, a := range client.Actions() {
		if a.GetVerb() == "create" && a.GetResource().Resource == "configmaps" {
			n++
		}
	}
	return n
}

// A pod recreated under its name finds its live ConfigMap in the cache
// and has it patched, without a create the API server refuses first; a
// live ConfigMap the cache does not show is created, and one the cache
// shows but the API server no longer has is created after the read.
func TestALiveConfigMapTheCacheShowsIsPatchedNotCreatedFirst(t *testing.T) {
	set, pod, cp, l := liveFixture(t)
	owner := metav1.OwnerReference{APIVersion: v1alpha1.Kind.GroupVersion().String(), Kind: v1alpha1.Kind.Kind, Name: set.Name, UID: set.UID}
	old := configrev.LiveConfigMap(l, pod, set.Name, owner, cp)
	old.Data = map[string]string{"k": "1"}
	old.Annotations[v1alpha1.ConfigCopyAnnotation] = "conf-old"

	for _, c := range []struct {
		name             string
		inAPI, inCache   bool
		wantCreates      int
		wantData, wantCp string
	}{
		{"shown and there", true, true, 0, "2", cp.Name},
		{"not shown, there", true, false, 1, "2", cp.Name},
		{"not shown, not there", false, false, 1, "2", cp.Name},
		{"shown, gone since", false, true, 1, "2", cp.Name},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs := []runtime.Object{cp.DeepCopy()}
			if c.inAPI {
				objs = append(objs, old.DeepCopy())
			}
			client := fake.NewClientset(objs...)
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			if c.inCache {
				if err := indexer.Add(old.DeepCopy()); err != nil {
					t.Fatal(err)
				}
			}
			pc := &apiPodControl{client: client, configMaps: corelisters.NewConfigMapLister(indexer)}
			if err := pc.writeOneLive(context.Background(), set, pod, l); err != nil {
				t.Fatalf("writeOneLive: %v", err)
			}
			if got := configMapCreates(client); got != c.wantCreates {
				t.Errorf("%d creates of ConfigMaps, want %d (actions %v)", got, c.wantCreates, verbs(client.Actions()))
			}
			got, err := client.CoreV1().ConfigMaps("shop").Get(context.Background(), l.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Data["k"] != c.wantData || got.Annotations[v1alpha1.ConfigCopyAnnotation] != c.wantCp {
				t.Errorf("live ConfigMap holds %v from %q, want k=%s from %q", got.Data, got.Annotations[v1alpha1.ConfigCopyAnnotation], c.wantData, c.wantCp)
			}
		})
	}
}

func verbs(actions []k8stesting.Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
	}
	return out
}
