// Package crd holds the extended StatefulSet's CustomResourceDefinition,
// generated from api/v1alpha1 by hack/generate.sh. The YAML beside this
// file is what kustomize installs from config/; Go code (`ordinal up`,
// tests) gets the same bytes embedded.
package crd
