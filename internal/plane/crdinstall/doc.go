// Package crdinstall installs a CustomResourceDefinition, creating or
// updating it, and waits until the API server serves it.
package crdinstall
