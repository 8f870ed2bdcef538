package ostsclient

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func fakeDynamic() *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{v1alpha1.Resource: "StatefulSetList"})
}

func TestEachVerbReachesTheKindsResourceAndReturnsTypedSets(t *testing.T) {
	ctx := context.Background()
	dyn := fakeDynamic()
	sets := New(dyn).StatefulSets("ns")

	created, err := sets.Create(ctx, fullSet("ns", "web"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.UpdateStrategy.RollingUpdate.OnFailure != v1alpha1.FailureRollback {
		t.Errorf("created set's onFailure %q, want Rollback", created.Spec.UpdateStrategy.RollingUpdate.OnFailure)
	}
	got, err := sets.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(created, got, quantities); diff != "" {
		t.Errorf("get after create (-created +got):\n%s", diff)
	}

	got.Spec.Replicas = new(int32(5))
	if got, err = sets.Update(ctx, got, metav1.UpdateOptions{}); err != nil || *got.Spec.Replicas != 5 {
		t.Fatalf("update: %v, replicas %v", err, got.Spec.Replicas)
	}
	got.Status.ReadyReplicas = 3
	if got, err = sets.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil || got.Status.ReadyReplicas != 3 {
		t.Fatalf("update status: %v", err)
	}
	patch := []byte(`{"spec":{"updateStrategy":{"rollingUpdate":{"paused":false}}}}`)
	if got, err = sets.Patch(ctx, "web", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil || got.Spec.UpdateStrategy.RollingUpdate.Paused {
		t.Fatalf("patch: %v, paused %v", err, got.Spec.UpdateStrategy.RollingUpdate.Paused)
	}
	if err := sets.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sets.Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}

	var calls []string
	for _, a := range dyn.Actions() {
		if a.GetResource() != v1alpha1.Resource || a.GetNamespace() != "ns" {
			t.Errorf("%s went to %v in %q, want %v in ns", a.GetVerb(), a.GetResource(), a.GetNamespace(), v1alpha1.Resource)
		}
		calls = append(calls, a.GetVerb()+"/"+a.GetSubresource())
	}
	want := []string{"create/", "get/", "update/", "update/status", "patch/", "delete/", "get/"}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestListReturnsTheNamespacesSetsOrAll(t *testing.T) {
	ctx := context.Background()
	client := New(fakeDynamic())
	for _, s := range []*v1alpha1.StatefulSet{fullSet("a", "web"), fullSet("a", "db"), fullSet("b", "web")} {
		if _, err := client.StatefulSets(s.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for ns, want := range map[string][]string{"a": {"a/db", "a/web"}, "b": {"b/web"}, "": {"a/db", "a/web", "b/web"}} {
		list, err := client.StatefulSets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range list.Items {
			got = append(got, s.Namespace+"/"+s.Name)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("list in %q (-want +got):\n%s", ns, diff)
		}
		if list.Kind != "StatefulSetList" || list.APIVersion != "apps.ordinal.dev/v1alpha1" {
			t.Errorf("list kind %q apiVersion %q", list.Kind, list.APIVersion)
		}
	}
}

func TestErrorsComeBackAsTheAPIServerSentThem(t *testing.T) {
	dyn := fakeDynamic()
	dyn.PrependReactor("update", "statefulsets", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(v1alpha1.Resource.GroupResource(), "web", nil)
	})
	_, err := New(dyn).StatefulSets("ns").UpdateStatus(context.Background(), fullSet("ns", "web"), metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Errorf("got %v, want the Conflict", err)
	}
}

func TestWatchDeliversTypedSets(t *testing.T) {
	ctx := context.Background()
	dyn := fakeDynamic()
	sets := New(dyn).StatefulSets("ns")
	w, err := sets.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	set := fullSet("ns", "web")
	if _, err := sets.Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	set.Spec.Replicas = new(int32(4))
	if _, err := sets.Update(ctx, set, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := sets.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 3 {
		select {
		case e := <-w.ResultChan():
			s, ok := e.Object.(*v1alpha1.StatefulSet)
			if !ok {
				t.Fatalf("%s event carries a %T", e.Type, e.Object)
			}
			got = append(got, string(e.Type)+" "+s.Name+" "+string(rune('0'+*s.Spec.Replicas)))
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d events within 10s: %v", len(got), got)
		}
	}
	want := []string{string(watch.Added) + " web 3", string(watch.Modified) + " web 4", string(watch.Deleted) + " web 4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestWatchTurnsServerErrorsAndUnconvertibleObjectsIntoErrorEvents(t *testing.T) {
	dyn := fakeDynamic()
	fw := watch.NewFake()
	dyn.PrependWatchReactor("statefulsets", func(clienttesting.Action) (bool, watch.Interface, error) { return true, fw, nil })
	w, err := New(dyn).StatefulSets("ns").Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	go func() {
		fw.Error(&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure",
			"reason": "Expired", "code": int64(410), "message": "too old resource version"}})
		fw.Add(&unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps.ordinal.dev/v1alpha1", "kind": "StatefulSet",
			"metadata": map[string]any{"namespace": "ns", "name": "web"}, "spec": map[string]any{"replicas": "three"}}})
	}()
	var got []string
	for len(got) < 2 {
		select {
		case e := <-w.ResultChan():
			status, ok := e.Object.(*metav1.Status)
			if e.Type != watch.Error || !ok {
				t.Fatalf("got a %s event with a %T, want Error events with a *metav1.Status", e.Type, e.Object)
			}
			got = append(got, fmt.Sprintf("%d %s", status.Code, status.Reason))
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d events within 10s", len(got))
		}
	}
	if diff := cmp.Diff([]string{"410 Expired", "500 InternalError"}, got); diff != "" {
		t.Errorf("error events (-want +got):\n%s", diff)
	}
}
