package plane

import (
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ordinal-sh/ordinal/internal/plane/pki"
)

// contextName names the cluster, user and context in every kubeconfig the
// plane writes.
const contextName = "ordinal"

// writeKubeconfig writes a kubeconfig for server with the client pair's
// credentials embedded, mode 0600 since it holds a private key.
func writeKubeconfig(path, server, caFile string, client pki.Pair) error {
	ca, err := pki.ReadPEM(caFile)
	if err != nil {
		return err
	}
	cert, err := pki.ReadPEM(client.CertFile)
	if err != nil {
		return err
	}
	key, err := pki.ReadPEM(client.KeyFile)
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[contextName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[contextName] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts[contextName] = &clientcmdapi.Context{Cluster: contextName, AuthInfo: contextName, Namespace: "default"}
	cfg.CurrentContext = contextName
	raw, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("encoding kubeconfig %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return fmt.Errorf("writing kubeconfig: %w", err)
	}
	// WriteFile keeps the mode of an existing file; force 0600.
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fmt.Errorf("writing kubeconfig: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing kubeconfig: %w", err)
	}
	return nil
}
