// Package image assembles the ordinal-controller container image without a
// container engine: a single layer holding the static controller binary and
// a CA bundle, a non-root user and no shell, written as an OCI image layout
// and an OCI archive.
//
// Every input that could vary between machines is fixed: file owners, modes
// and times in the layer, the order of its entries, the config's creation
// time and the CA bundle (taken from a pinned Go module instead of the build
// machine). Built from the same commit with the same Go release, the image
// has the same digest on any machine.
package image
