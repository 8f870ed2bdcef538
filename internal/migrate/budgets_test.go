package migrate

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// A set that respects PodDisruptionBudgets is refused while a budget
// selects one of its pods (apps/v1 would not ask it), and only then.
func TestABudgetThatSelectsThePodsRefusesTheMigration(t *testing.T) {
	budget := func(name string, sel *metav1.LabelSelector) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel}}
	}
	web := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	other := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	for _, tt := range []struct {
		name    string
		respect *bool
		budgets []*policyv1.PodDisruptionBudget
		want    string
	}{
		{"a budget of the pods, the default", nil, []*policyv1.PodDisruptionBudget{budget("web", web), budget("db", other)},
			"spec.updateStrategy.rollingUpdate.respectDisruptionBudgets is true and PodDisruptionBudget web selects pods of web: apps/v1 deletes the pods of its rolling update without asking it; set the field to false to accept that"},
		{"a budget of every pod of the namespace (an empty selector)", ptr.To(true), []*policyv1.PodDisruptionBudget{budget("all", &metav1.LabelSelector{})},
			"PodDisruptionBudget all selects pods of web"},
		{"only budgets of other pods, or none", nil, []*policyv1.PodDisruptionBudget{budget("db", other), budget("none", nil)}, ""},
		{"budgets not respected already", ptr.To(false), []*policyv1.PodDisruptionBudget{budget("web", web)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set, err := toExtended(appsSet())
			if err != nil {
				t.Fatal(err)
			}
			set.Spec.UpdateStrategy.RollingUpdate.RespectDisruptionBudgets = tt.respect
			kube := fake.NewClientset()
			for _, b := range tt.budgets {
				if _, err := kube.PolicyV1().PodDisruptionBudgets("shop").Create(context.Background(), b, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			p := &Plan{Namespace: "shop", Pods: []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Labels: map[string]string{"app": "web"}}}}}
			got, err := p.budgetRefusals(context.Background(), Clients{Kube: kube}, set)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("refused: %q", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
				t.Errorf("reasons %q, want one saying %q", got, tt.want)
			}
		})
	}
}
