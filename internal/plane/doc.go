// Package plane runs a real Kubernetes control plane inside one process:
// embedded etcd, kube-apiserver, the kube-controller-manager's controllers,
// kube-scheduler, simulated kwok nodes and a hostPath volume provisioner, all
// bound to the loopback address with TLS and client-certificate
// authentication. `ordinal up` is a thin command around Start; integration
// tests start one plane per test package through the same function.
package plane
