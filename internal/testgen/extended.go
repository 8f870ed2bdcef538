package testgen

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Extended returns set as the extended kind: the same JSON under
// apps.ordinal.dev/v1alpha1, as a user changes a manifest's apiVersion.
func Extended(set *appsv1.StatefulSet) (*v1alpha1.StatefulSet, error) {
	data, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	ext := &v1alpha1.StatefulSet{}
	if err := json.Unmarshal(data, ext); err != nil {
		return nil, err
	}
	ext.APIVersion, ext.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.Kind.Kind
	return ext, nil
}
