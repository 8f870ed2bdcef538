package drain

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// serving makes c's discovery serve the EvictionRequest API.
func serving(c *fake.Clientset) {
	c.Resources = append(c.Resources, &metav1.APIResourceList{GroupVersion: lifecyclev1alpha1.SchemeGroupVersion.String(),
		APIResources: []metav1.APIResource{{Name: "evictionrequests"}, {Name: "evictionrequests/status"}, {Name: "evictions"}, {Name: "evictions/status"}}})
}

// playingTheMachinery makes c play the eviction request machinery: a request's pod
// is deleted at once and the request stored as reporting TargetEvicted.
func playingTheMachinery(c *fake.Clientset) {
	c.PrependReactor("create", "evictionrequests", func(a k8stesting.Action) (bool, runtime.Object, error) {
		er := a.(k8stesting.CreateAction).GetObject().(*lifecyclev1alpha1.EvictionRequest).DeepCopy()
		er.Status.Conditions = []metav1.Condition{{Type: "TargetEvicted", Status: metav1.ConditionTrue, Reason: "PodDeleted"}}
		gvr := schema.GroupVersionResource{Group: "lifecycle.k8s.io", Version: "v1alpha1", Resource: "evictionrequests"}
		if err := c.Tracker().Create(gvr, er, er.Namespace); err != nil {
			return true, nil, err
		}
		pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
		return true, er, c.Tracker().Delete(pods, er.Namespace, er.Spec.Target.Pod.Name)
	})
}

func TestADrainWhereEvictionRequestsAreServedAsksEachPodWithOne(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
		drainPod("web-0", "n1", "StatefulSet"), drainPod("web-1", "n1", "StatefulSet"))
	serving(c)
	playingTheMachinery(c)
	asked := evictions(c, nil)
	var out bytes.Buffer
	if err := Drain(context.Background(), c, "n1", Options{Timeout: 5 * time.Second, Out: &out}); err != nil {
		t.Fatalf("drain: %v\n%s", err, out.String())
	}
	if n := len(asked()); n != 0 {
		t.Errorf("%d pods evicted through the Eviction API, want none: the requests ask", n)
	}
	for _, want := range []string{"requesting the eviction of pod ns/web-0", "requesting the eviction of pod ns/web-1", "pod/web-0 evicted", "node/n1 drained"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("drain printed no %q:\n%s", want, out.String())
		}
	}
	left, err := c.LifecycleV1alpha1().EvictionRequests("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(left.Items) != 0 {
		t.Errorf("requests left after the drain: %v (%v), want the drain to delete its own", left, err)
	}
}

func TestADrainThatTimesOutWithdrawsItsRequests(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, drainPod("web-0", "n1", "StatefulSet"))
	serving(c)
	err := Drain(context.Background(), c, "n1", Options{Via: ViaEvictionRequests, Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrDrainTimeout) || !strings.Contains(err.Error(), "web-0") {
		t.Fatalf("error %v, want ErrDrainTimeout naming web-0", err)
	}
	er, err := c.LifecycleV1alpha1().EvictionRequests("ns").Get(context.Background(), "drain-web-0-web", metav1.GetOptions{})
	if err != nil || er.Spec.Intent != lifecyclev1alpha1.EvictionRequestIntentWithdrawn || er.Spec.Requester != DrainRequester {
		t.Errorf("request %+v (%v), want it withdrawn by %s", er, err, DrainRequester)
	}
}

func TestADrainFailsWithAFailedRequestsReason(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, drainPod("web-0", "n1", "StatefulSet"))
	serving(c)
	c.PrependReactor("create", "evictionrequests", func(a k8stesting.Action) (bool, runtime.Object, error) {
		er := a.(k8stesting.CreateAction).GetObject().(*lifecyclev1alpha1.EvictionRequest).DeepCopy()
		er.Status.Conditions = []metav1.Condition{{Type: "Failed", Status: metav1.ConditionTrue, Reason: "NoFurtherResponder", Message: "every responder has had its turn"}}
		gvr := schema.GroupVersionResource{Group: "lifecycle.k8s.io", Version: "v1alpha1", Resource: "evictionrequests"}
		return true, er, c.Tracker().Create(gvr, er, er.Namespace)
	})
	err := Drain(context.Background(), c, "n1", Options{Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "failed (NoFurtherResponder): every responder has had its turn") {
		t.Errorf("error %v, want the request's failure", err)
	}
}

func TestADrainAsksForRequestsOnlyWhereTheyAreServed(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, drainPod("web-0", "n1", "StatefulSet"))
	err := Drain(context.Background(), c, "n1", Options{Via: ViaEvictionRequests})
	if err == nil || !strings.Contains(err.Error(), "does not serve EvictionRequests") {
		t.Fatalf("error %v, want a refusal", err)
	}
	if n, _ := c.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{}); n.Spec.Unschedulable {
		t.Error("the refused drain cordoned the node")
	}
	asked := evictions(c, nil)
	var out bytes.Buffer
	if err := Drain(context.Background(), c, "n1", Options{Out: &out, Timeout: 5 * time.Second}); err != nil || asked()["web-0"] != 1 {
		t.Errorf("--via auto without the API: %v, evictions %v, want web-0 evicted as kubectl does\n%s", err, asked(), out.String())
	}
}
