package realnode

import "context"

// kubeletChains are the iptables chains a kubelet makes, by table, and
// the built-in chains that jump to one. kube-proxy --cleanup removes
// kube-proxy's own, not these.
var kubeletChains = []struct {
	table, chain string
	from         []string
}{
	{"filter", "KUBE-FIREWALL", []string{"INPUT", "OUTPUT"}},
	{"filter", "KUBE-KUBELET-CANARY", nil},
	{"nat", "KUBE-KUBELET-CANARY", nil},
	{"mangle", "KUBE-KUBELET-CANARY", nil},
	{"mangle", "KUBE-IPTABLES-HINT", nil},
}

// removeKubeletChains deletes the kubelet's chains for IPv4 and IPv6, so
// the machine's rules are as they were once the node is gone. What is not
// there is skipped.
func removeKubeletChains(ctx context.Context) {
	for _, tool := range []string{"iptables", "ip6tables"} {
		for _, c := range kubeletChains {
			for _, from := range c.from {
				for run(ctx, tool, "-w", "-t", c.table, "-D", from, "-j", c.chain) == nil {
				}
			}
			_ = run(ctx, tool, "-w", "-t", c.table, "-F", c.chain)
			_ = run(ctx, tool, "-w", "-t", c.table, "-X", c.chain)
		}
	}
}
