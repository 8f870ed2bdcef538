package setops

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// growingInPlace is an InPlace extended set whose www template asks for
// 2Gi while its three pods' claims, in the default class, have 1Gi.
func growingInPlace(t *testing.T) Observed {
	t.Helper()
	set, err := testgen.Extended(testgen.StatefulSet("web", testgen.Replicas(3), testgen.ClaimTemplates("www")))
	if err != nil {
		t.Fatal(err)
	}
	set.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
	set.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	view := osts.View(set)
	old := testgen.RevisionOf(view, 1)
	o := Observed{Set: view, Extended: set, Revisions: []*appsv1.ControllerRevision{old}, Claims: map[string]*corev1.PersistentVolumeClaim{}}
	for ord := int32(0); ord < 3; ord++ {
		o.Pods = append(o.Pods, testgen.Pod(view, ord, testgen.At(old)))
		c := testgen.Claim(view, "www", ord)
		c.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
		c.Status.Phase, c.Status.Capacity = corev1.ClaimBound, corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
		o.Claims[c.Name] = c
	}
	return o
}

func TestPlanSaysWhenTheStorageClassRefusesToGrow(t *testing.T) {
	o := growingInPlace(t)
	o.StorageClasses = []*storagev1.StorageClass{{
		ObjectMeta:           metav1.ObjectMeta{Name: "standard", Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
		AllowVolumeExpansion: ptr.To(false),
	}}
	report, err := PlanReport(o, testgen.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(report.Steps); n != 0 {
		t.Errorf("the plan has %d steps; with a class that cannot grow no claim is patched", n)
	}
	if !strings.Contains(waitWords(report.Waits), "no claim is patched while one cannot grow") {
		t.Errorf("waits %q do not say the class refuses", waitWords(report.Waits))
	}

	o.StorageClasses[0].AllowVolumeExpansion = ptr.To(true)
	report, err = PlanReport(o, testgen.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Steps) == 0 {
		t.Error("with a class that grows, the plan patches no claim")
	}
}

func waitWords(waits []rolloutview.Wait) string {
	var b strings.Builder
	for _, w := range waits {
		b.WriteString(w.Pod + ": " + w.Policy + "\n")
	}
	return b.String()
}
