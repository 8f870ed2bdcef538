package ostsclient

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// FromUnstructured converts an object read through the dynamic client into
// the typed set.
func FromUnstructured(u *unstructured.Unstructured) (*v1alpha1.StatefulSet, error) {
	set := &v1alpha1.StatefulSet{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), set); err != nil {
		return nil, fmt.Errorf("converting %s %s/%s: %w", v1alpha1.Kind.Kind, u.GetNamespace(), u.GetName(), err)
	}
	return set, nil
}

// ToUnstructured converts a typed set for the dynamic client, with the
// apiVersion and kind the API server needs in a request body.
func ToUnstructured(set *v1alpha1.StatefulSet) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(set)
	if err != nil {
		return nil, fmt.Errorf("converting %s %s/%s: %w", v1alpha1.Kind.Kind, set.Namespace, set.Name, err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(v1alpha1.Kind)
	return u, nil
}

func listFromUnstructured(ul *unstructured.UnstructuredList) (*v1alpha1.StatefulSetList, error) {
	list := &v1alpha1.StatefulSetList{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "StatefulSetList"},
		Items:    make([]v1alpha1.StatefulSet, 0, len(ul.Items)),
	}
	list.ResourceVersion = ul.GetResourceVersion()
	list.Continue = ul.GetContinue()
	list.RemainingItemCount = ul.GetRemainingItemCount()
	for i := range ul.Items {
		set, err := FromUnstructured(&ul.Items[i])
		if err != nil {
			return nil, err
		}
		list.Items = append(list.Items, *set)
	}
	return list, nil
}
