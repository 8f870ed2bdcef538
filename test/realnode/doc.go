// Package realnode holds the tests that run on a real node: one plane with
// `--real-node` (containerd, runc, a kubelet and kube-proxy) beside
// simulated nodes, shared by every test here, whose StatefulSet controller
// is the chart's, installed by Helm as a real pod on the real node. They check with real
// containers what the simulated kubelet pretends. Without root or the
// tools of hack/ensure-realnode.sh they are skipped, each saying why;
// hack/test.sh builds the tools and requires them to run
// (ORDINAL_REALNODE=require), so CI never skips them silently.
package realnode
