package plane

import (
	"net"
	"path/filepath"

	"github.com/ordinal-sh/ordinal/internal/plane/pki"
)

// Storage names of the plane.
const (
	storageClassName = "standard"
	provisionerName  = "ordinal.dev/hostpath"
)

// credentials are the plane's certificates and keys, all under DATA_DIR/pki.
// Two authorities: ca (pki/) signs the API server's serving certificate
// and every client certificate the API server accepts (the admin's, the
// components', and any the controller-manager signs); etcdCA (pki/etcd/)
// signs etcd's serving certificate and the API server's etcd client
// certificate alone, so etcd, which trusts only etcdCA, refuses every
// other client: an API server user's certificate is no key to the
// database under the API server's authorization.
type credentials struct {
	ca          *pki.Authority
	etcdCA      *pki.Authority
	apiServing  pki.Pair
	etcdServing pki.Pair
	etcdClient  pki.Pair
	clients     map[string]pki.Pair
	saKey       string
	saPub       string
	etcdURL     string
}

// clientIdentities are the users of the plane. The in-process components
// other than the scheduler act for the whole cluster (the controller-manager
// runs without per-controller service accounts), so they are in
// system:masters; the scheduler has its own bootstrap role.
var clientIdentities = []pki.Identity{
	{Name: "admin", CommonName: "ordinal-admin", Groups: []string{"system:masters"}},
	{Name: "controller-manager", CommonName: "system:kube-controller-manager", Groups: []string{"system:masters"}},
	{Name: "scheduler", CommonName: "system:kube-scheduler"},
	{Name: "nodes", CommonName: "system:ordinal-simulated-nodes", Groups: []string{"system:masters"}},
}

// loadCredentials loads the plane's credentials, issuing what is missing.
// A data directory made before etcd had its own authority has none in
// pki/etcd/: it is created with etcd's certificates there, and the old
// etcd certificates in pki/, signed by the clients' authority, are left
// unused. Every authority and key is checked to be the user's own first.
func loadCredentials(d *dataDir) (*credentials, error) {
	ca, err := loadAuthority(d.path("pki"), "ordinal-ca")
	if err != nil {
		return nil, err
	}
	etcdCA, err := loadAuthority(d.path("pki", "etcd"), "ordinal-etcd-ca")
	if err != nil {
		return nil, err
	}
	c := &credentials{ca: ca, etcdCA: etcdCA, clients: map[string]pki.Pair{}}
	loopback := []net.IP{net.ParseIP("127.0.0.1")}
	c.apiServing, err = ca.Issue(pki.Identity{
		Name: "apiserver", CommonName: "kube-apiserver", Server: true,
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		IPs:      append(loopback, net.ParseIP(kubernetesSvcIP)),
	})
	if err != nil {
		return nil, err
	}
	if c.etcdServing, err = etcdCA.Issue(pki.Identity{Name: "etcd", CommonName: "etcd", Server: true, DNSNames: []string{"localhost"}, IPs: loopback}); err != nil {
		return nil, err
	}
	if c.etcdClient, err = etcdCA.Issue(pki.Identity{Name: "apiserver-etcd-client", CommonName: "kube-apiserver-etcd-client"}); err != nil {
		return nil, err
	}
	for _, id := range clientIdentities {
		if c.clients[id.Name], err = ca.Issue(id); err != nil {
			return nil, err
		}
	}
	c.saKey, c.saPub, err = pki.LoadOrCreateSigningKey(d.path("pki"))
	return c, err
}

// loadAuthority checks that the authority's directory, certificate and
// key are the user's own and private (checkPrivate), then loads or
// creates it.
func loadAuthority(dir, commonName string) (*pki.Authority, error) {
	for _, f := range []struct {
		path   string
		secret bool
	}{{dir, false}, {filepath.Join(dir, "ca.crt"), false}, {filepath.Join(dir, "ca.key"), true}} {
		if err := checkPrivate("certificate authority file", f.path, f.secret); err != nil {
			return nil, err
		}
	}
	return pki.LoadOrCreateAuthority(dir, commonName)
}

func (c *credentials) caKey() string { return filepath.Join(c.ca.Dir, "ca.key") }

// kubeconfig is where the named client's kubeconfig lives: the admin one at
// DATA_DIR/kubeconfig, the components' under DATA_DIR/pki.
func (c *credentials) kubeconfig(d *dataDir, name string) string {
	if name == "admin" {
		return d.path("kubeconfig")
	}
	return d.path("pki", name+".kubeconfig")
}

// writeKubeconfigs (re)writes every kubeconfig for server, whose port may
// differ from the last run.
func (c *credentials) writeKubeconfigs(d *dataDir, server string) error {
	for _, id := range clientIdentities {
		if err := writeKubeconfig(c.kubeconfig(d, id.Name), server, c.ca.CAFile(), c.clients[id.Name]); err != nil {
			return err
		}
	}
	return nil
}
