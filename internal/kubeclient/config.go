package kubeclient

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// LoadRESTConfig prefers the kubeconfig at path, then the in-cluster
// configuration, then the usual kubeconfig loading rules ($KUBECONFIG,
// ~/.kube/config).
func LoadRESTConfig(path string) (*rest.Config, error) {
	if path != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, fmt.Errorf("loading kubeconfig %s: %w", path, err)
		}
		return cfg, nil
	}
	if cfg, err := rest.InClusterConfig(); err == nil {
		return cfg, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("no kubeconfig: pass --kubeconfig, set $KUBECONFIG, or run in a cluster: %w", err)
	}
	return cfg, nil
}

// UseProtobuf makes a client configuration speak protobuf to the API
// server, as kube-controller-manager's clients do: cheaper to encode and
// decode than JSON for the built-in types the controller reads and writes.
func UseProtobuf(cfg *rest.Config) {
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
}
