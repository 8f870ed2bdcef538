package plane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/plane/pki"
	"github.com/ordinal-sh/ordinal/internal/plane/realnode"
)

// realNodeReadyTimeout bounds the wait for the real node to turn Ready.
const realNodeReadyTimeout = 3 * time.Minute

// kubeletClientUser is the API server's user towards kubelets (logs, exec).
const kubeletClientUser = "kube-apiserver-kubelet-client"

// realNodeCreds are the certificates of a real node and of the API server
// towards it.
type realNodeCreds struct {
	kubelet, proxy, kubeletServing, apiserverClient pki.Pair
}

// prepareRealNode readies the machine before the API server listens (the
// bridge's gateway address is one the API server and the DNS serve pods
// on) and issues the node's certificates.
func (p *Plane) prepareRealNode(ctx context.Context, creds *credentials) error {
	if !p.cfg.RealNode {
		return nil
	}
	host, err := realnode.PrepareHost(ctx, p.realNodeConfig())
	if err != nil {
		return err
	}
	p.realHost = host
	name := p.realNodeConfig().NodeNameOrDefault()
	rc := &realNodeCreds{}
	issue := []struct {
		pair *pki.Pair
		id   pki.Identity
	}{
		{&rc.kubelet, pki.Identity{Name: "real-node-kubelet", CommonName: "system:node:" + name, Groups: []string{"system:nodes"}}},
		{&rc.proxy, pki.Identity{Name: "real-node-kube-proxy", CommonName: "system:kube-proxy"}},
		{&rc.kubeletServing, pki.Identity{Name: "real-node-kubelet-serving", CommonName: name, Server: true, DNSNames: []string{name}, IPs: []net.IP{host.Gateway()}}},
		{&rc.apiserverClient, pki.Identity{Name: "apiserver-kubelet-client", CommonName: kubeletClientUser}},
	}
	for _, i := range issue {
		if *i.pair, err = creds.ca.Issue(i.id); err != nil {
			return fmt.Errorf("real node: %w", err)
		}
	}
	p.realCreds = rc
	return nil
}

func (p *Plane) realNodeConfig() realnode.Config {
	return realnode.Config{Tools: p.cfg.RealNodeTools, Dir: p.dir.path("realnode"), ServiceCIDR: serviceCIDR, Log: p.cfg.Log}
}

// realNodeGateway is the address the API server advertises and the DNS
// also answers on when a real node runs, else nil.
func (p *Plane) realNodeGateway() net.IP {
	if p.realHost == nil {
		return nil
	}
	return p.realHost.Gateway()
}

// startRealNodeStage writes the node's kubeconfigs, grants its users their
// roles and starts it; the node is ready when the API says so.
func (p *Plane) startRealNodeStage(ctx context.Context, creds *credentials, client kubernetes.Interface) error {
	if p.realHost == nil {
		return nil
	}
	cfg := p.realNodeConfig()
	cfg.Kubeconfig, cfg.ProxyKubeconfig = p.dir.path("pki", "real-node-kubelet.kubeconfig"), p.dir.path("pki", "real-node-kube-proxy.kubeconfig")
	cfg.ClientCAFile = creds.ca.CAFile()
	cfg.ServingCert, cfg.ServingKey = p.realCreds.kubeletServing.CertFile, p.realCreds.kubeletServing.KeyFile
	for path, pair := range map[string]pki.Pair{cfg.Kubeconfig: p.realCreds.kubelet, cfg.ProxyKubeconfig: p.realCreds.proxy} {
		if err := writeKubeconfig(path, p.serverURL, creds.ca.CAFile(), pair); err != nil {
			return err
		}
	}
	if err := grantRealNodeRoles(ctx, client); err != nil {
		return err
	}
	node, err := realnode.Start(ctx, cfg)
	if err != nil {
		return err
	}
	p.realNode = node
	if err := p.watch("real node", func() (<-chan error, error) { return node.Exited(), nil }); err != nil {
		return err
	}
	// A kubelet's first start (cgroups, its managers, the first node status)
	// takes longer than the other stages on a loaded machine.
	return p.waitForWithin(ctx, "real node "+node.Name(), realNodeReadyTimeout, func(ctx context.Context) (bool, error) {
		n, err := client.CoreV1().Nodes().Get(ctx, node.Name(), metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range n.Status.Conditions {
			if c.Type == "Ready" {
				return c.Status == "True", nil
			}
		}
		return false, nil
	})
}

// grantRealNodeRoles binds the API server's kubelet client to
// system:kubelet-api-admin, which the kubelet's webhook authorization asks
// about. The kubelet's own user needs no binding: the Node authorizer
// grants it what its node's pods need and no more, where RBAC's
// system:node role would let it read every secret; a binding of it that
// an earlier version made in the data directory is removed.
// kube-proxy's user has its role bound by default.
func grantRealNodeRoles(ctx context.Context, client kubernetes.Interface) error {
	err := client.RbacV1().ClusterRoleBindings().Delete(ctx, legacyKubeletBinding, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("real node: removing the binding %s: %w", legacyKubeletBinding, err)
	}
	b := binding("ordinal:apiserver-kubelet-client", "system:kubelet-api-admin", kubeletClientUser)
	_, err = client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("real node: binding %s: %w", b.Name, err)
	}
	return nil
}

// legacyKubeletBinding bound the kubelet's user to system:node before the
// plane ran the Node authorizer.
const legacyKubeletBinding = "ordinal:real-node"

func binding(name, role, user string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
}

// RealNode is the running real node, or nil without --real-node.
func (p *Plane) RealNode() *realnode.Node { return p.realNode }

// closeRealNode stops the node (before the API clients, as it is one) and
// hands back the host's cleanup for after the API server has stopped.
func (p *Plane) closeRealNode() error {
	if p.realNode == nil {
		return nil
	}
	return p.realNode.Close()
}

// listenAPIFor binds the API server's port on 127.0.0.1 and, with a real
// node, on the gateway address at the same port, so that kube-proxy can
// send pods' requests for the "kubernetes" Service there.
func (p *Plane) listenAPIFor(port int) (net.Listener, error) {
	l, err := listenAPI(port)
	if err != nil || p.realHost == nil {
		return l, err
	}
	_, at, _ := net.SplitHostPort(l.Addr().String())
	gw, err := net.Listen("tcp", net.JoinHostPort(p.realHost.Gateway().String(), at))
	if err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("real node: listening on the gateway %s at the API server's port %s: %w", p.realHost.Gateway(), at, err)
	}
	return newJointListener(l, gw), nil
}

// jointListener accepts from several listeners; its address is the first's.
type jointListener struct {
	ls    []net.Listener
	conns chan net.Conn
	errs  chan error
	once  sync.Once
	done  chan struct{}
}

func newJointListener(ls ...net.Listener) *jointListener {
	j := &jointListener{ls: ls, conns: make(chan net.Conn), errs: make(chan error, len(ls)), done: make(chan struct{})}
	for _, l := range ls {
		go j.accept(l)
	}
	return j
}

func (j *jointListener) accept(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			select {
			case j.errs <- err:
			case <-j.done:
			}
			return
		}
		select {
		case j.conns <- c:
		case <-j.done:
			_ = c.Close()
			return
		}
	}
}

func (j *jointListener) Accept() (net.Conn, error) {
	select {
	case c := <-j.conns:
		return c, nil
	case err := <-j.errs:
		return nil, err
	case <-j.done:
		return nil, net.ErrClosed
	}
}

func (j *jointListener) Close() error {
	var errs []error
	j.once.Do(func() {
		close(j.done)
		for _, l := range j.ls {
			errs = append(errs, l.Close())
		}
	})
	return errors.Join(errs...)
}

func (j *jointListener) Addr() net.Addr { return j.ls[0].Addr() }

// dnsAlsoAddresses is the gateway's port 53 with a real node.
func (p *Plane) dnsAlsoAddresses() []string {
	if gw := p.realNodeGateway(); gw != nil {
		return []string{net.JoinHostPort(gw.String(), strconv.Itoa(53))}
	}
	return nil
}

// apiserverKubeletClient is the API server's pair towards kubelets, or nil
// without a real node.
func (rc *realNodeCreds) apiserverKubeletClient() *pki.Pair {
	if rc == nil {
		return nil
	}
	return &rc.apiserverClient
}
