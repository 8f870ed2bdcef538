package rehearse

import (
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/shape"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
)

// source is the source cluster as the rehearsal reaches it: every request
// goes through a read-only counter, which refuses writes before they
// leave the process.
type source struct {
	clients   shape.Clients
	counter   *shape.Counter
	context   string
	namespace string
}

// connect loads the kubeconfig's context (--from-context, else the
// current one) and builds the source's clients behind a read-only
// counter.
func (o *options) connect() (*source, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.context}
	overrides.Context.Namespace = o.namespace
	overrides.AuthInfo.Impersonate, overrides.AuthInfo.ImpersonateGroups = o.as, o.asGroups
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	rc, err := loader.ClientConfig()
	if err != nil {
		return nil, exit.Usage(fmt.Errorf("loading the source's client configuration: %w", err))
	}
	ns, _, err := loader.Namespace()
	if err != nil {
		return nil, exit.Usage(fmt.Errorf("the source's namespace: %w", err))
	}
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, exit.Usage(fmt.Errorf("loading the source's kubeconfig: %w", err))
	}
	s := &source{counter: shape.NewCounter(true), namespace: ns, context: raw.CurrentContext}
	if o.context != "" {
		s.context = o.context
	}
	rc = rest.CopyConfig(rc)
	rc.QPS, rc.Burst = 20, 40
	s.counter.Wrap(rc)
	if s.clients.Kube, err = kubernetes.NewForConfig(rc); err != nil {
		return nil, fmt.Errorf("the source's client: %w", err)
	}
	installed, err := kubeclient.ExtendedInstalled(s.clients.Kube.Discovery())
	if err != nil {
		return nil, fmt.Errorf("asking the source whether it serves the extended kind: %w", err)
	}
	if installed {
		if s.clients.Extended, err = kubeclient.ExtendedClient(rc); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// requests counts what the rehearsal asked of the source.
func (s *source) requests() (reads, writes int, byVerb map[string]int) {
	byVerb = map[string]int{}
	for r, n := range s.counter.Counts() {
		byVerb[r.Verb] += n
		if r.Read() {
			reads += n
		} else {
			writes += n
		}
	}
	return reads, writes, byVerb
}
