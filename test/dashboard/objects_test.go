package dashboard_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
)

const (
	imageOld = "registry.k8s.io/nginx-slim:0.8"
	imageNew = "registry.k8s.io/nginx-slim:0.9"
)

// namespace creates a fresh namespace for one test.
func namespace(t *testing.T) string {
	t.Helper()
	name := "dash-" + rand.String(6)
	_, err := client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return name
}

// newSet is a set of n nginx pods, each with a 1Gi claim when claims is
// true.
func newSet(ns, name string, n int32, claims bool) *appsv1.StatefulSet {
	grace := int64(1)
	set := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.StatefulSetSpec{
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			ServiceName: name,
			Replicas:    &n,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: &grace,
					Containers:                    []corev1.Container{{Name: "nginx", Image: imageOld}},
				},
			},
		},
	}
	if claims {
		set.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
			ObjectMeta: metav1.ObjectMeta{Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}}
	}
	return set
}

func create(t *testing.T, set *appsv1.StatefulSet) {
	t.Helper()
	if _, err := client.AppsV1().StatefulSets(set.Namespace).Create(context.Background(), set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitComplete waits until every pod runs the update revision and is
// Ready, and returns the set.
func waitComplete(t *testing.T, ns, name string, timeout time.Duration) *appsv1.StatefulSet {
	t.Helper()
	var set *appsv1.StatefulSet
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		s, err := client.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		set = s
		st := s.Status
		return st.ObservedGeneration == s.Generation && st.ReadyReplicas == *s.Spec.Replicas &&
			st.UpdatedReplicas == *s.Spec.Replicas && st.CurrentRevision == st.UpdateRevision, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s/%s to complete: %v (status %+v)", ns, name, err, set.Status)
	}
	return set
}

// waitSet waits until cond holds for the set in the API.
func waitSet(t *testing.T, ns, name, what string, cond func(*appsv1.StatefulSet) bool) *appsv1.StatefulSet {
	t.Helper()
	var set *appsv1.StatefulSet
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := client.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		set = s
		return cond(s), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s/%s: %s: %v", ns, name, what, err)
	}
	return set
}

func patch(t *testing.T, ns, name, body string) {
	t.Helper()
	_, err := client.AppsV1().StatefulSets(ns).Patch(context.Background(), name, types.StrategicMergePatchType, []byte(body), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
}
