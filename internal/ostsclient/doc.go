// Package ostsclient is a typed client for the extended StatefulSet
// (apps.ordinal.dev/v1alpha1): the verbs of a generated clientset and a
// shared informer whose cache holds *v1alpha1.StatefulSet, both built on
// the dynamic client and runtime.DefaultUnstructuredConverter, so the
// controller needs no generated clientset and links no server code.
package ostsclient
