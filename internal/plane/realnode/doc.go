// Package realnode runs a real Kubernetes node beside the plane's simulated
// ones: containerd with runc, the CNI reference plugins on a bridge, a
// kubelet and kube-proxy, each a child process with its own log. The
// binaries come from a tools directory (hack/ensure-realnode.sh builds
// them); the images a node needs, which no registry here serves, are
// imported from the same directory. PrepareHost readies the machine before
// the API server listens (the bridge, whose gateway address the API server
// and the cluster DNS also serve on); Start brings the node up once the
// plane serves; Close stops it and removes what it left on the machine.
package realnode
