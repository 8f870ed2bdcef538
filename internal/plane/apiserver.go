package plane

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"

	"github.com/ordinal-sh/ordinal/internal/plane/pki"
)

// serviceCIDR is the cluster's service range; the first address is the
// in-cluster "kubernetes" service, so it is also in the serving certificate.
const (
	serviceCIDR     = "10.96.0.0/16"
	kubernetesSvcIP = "10.96.0.1"
)

type apiserverFiles struct {
	serving pki.Pair
	etcdCl  pki.Pair
	caFile  string
	// etcdCAFile is etcd's own authority, which signed etcd's serving
	// certificate and etcdCl; caFile, the clients' authority, is not
	// trusted by etcd.
	etcdCAFile string
	saKey      string
	saPub      string
	etcdURL    string
	listener   net.Listener
	// advertise is the address the "kubernetes" Service's endpoints
	// name, when not the loopback one: a real node's gateway.
	advertise net.IP
	// kubeletClient is the API server's pair towards real kubelets.
	kubeletClient *pki.Pair
	// evictionRequests serves lifecycle.k8s.io/v1alpha1, which the
	// EvictionRequestAPI gate alone does not: 1.37 disables the alpha
	// group version by default.
	evictionRequests bool
}

// apiserverFlags are the kube-apiserver flags of the plane. They pin the
// security defaults: loopback only, TLS, no anonymous requests, and a real
// cluster's authorization: the Node authorizer before RBAC, with the
// NodeRestriction admission plugin, so that a kubelet (a user
// system:node:NAME in group system:nodes) reads and writes only what its
// node's pods need and modifies only its own Node and their pods.
func apiserverFlags(f apiserverFiles) []string {
	advertise := "127.0.0.1"
	if f.advertise != nil {
		advertise = f.advertise.String()
	}
	flags := []string{
		"--bind-address=127.0.0.1",
		"--advertise-address=" + advertise,
		"--tls-cert-file=" + f.serving.CertFile,
		"--tls-private-key-file=" + f.serving.KeyFile,
		"--client-ca-file=" + f.caFile,
		"--anonymous-auth=false",
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--etcd-servers=" + f.etcdURL,
		"--etcd-cafile=" + f.etcdCAFile,
		"--etcd-certfile=" + f.etcdCl.CertFile,
		"--etcd-keyfile=" + f.etcdCl.KeyFile,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + f.saPub,
		"--service-account-signing-key-file=" + f.saKey,
		"--service-cluster-ip-range=" + serviceCIDR,
		"--allow-privileged=true",
		"--profiling=false",
		"--shutdown-delay-duration=0s",
		"--shutdown-send-retry-after=false",
	}
	if f.advertise == nil {
		// 1.37 refuses a loopback address for the reconciler that
		// publishes the API server in the kubernetes Service's endpoints;
		// without a real node nothing reaches the plane through that
		// Service (its pods run nowhere), so it has no endpoints.
		flags = append(flags, "--endpoint-reconciler-type=none")
	}
	if f.evictionRequests {
		flags = append(flags, "--runtime-config="+lifecyclev1alpha1.SchemeGroupVersion.String()+"=true")
	}
	if f.kubeletClient != nil {
		// A real node's name is not in any resolver; its InternalIP is the
		// gateway address the kubelet serves on.
		flags = append(flags, "--kubelet-client-certificate="+f.kubeletClient.CertFile, "--kubelet-client-key="+f.kubeletClient.KeyFile,
			"--kubelet-preferred-address-types=InternalIP,Hostname")
	}
	return flags
}

// apiserver is a running kube-apiserver.
type apiserver struct {
	loopback *rest.Config
	done     chan error
}

// startAPIServer builds the real kube-apiserver from its options, serves it on
// f.listener and returns once its handler chain is built; readiness is
// checked by the caller through the API.
func startAPIServer(ctx context.Context, f apiserverFiles) (*apiserver, error) {
	s := options.NewServerRunOptions()
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, set := range s.Flags().FlagSets {
		fs.AddFlagSet(set)
	}
	if err := fs.Parse(apiserverFlags(f)); err != nil {
		return nil, fmt.Errorf("kube-apiserver flags: %w", err)
	}
	s.SecureServing.Listener = f.listener
	s.SecureServing.BindPort = f.listener.Addr().(*net.TCPAddr).Port

	completed, err := s.Complete(ctx)
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver options: %w", err)
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return nil, fmt.Errorf("kube-apiserver options: %w", utilerrors.NewAggregate(errs))
	}
	config, err := app.NewConfig(completed)
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver config: %w", err)
	}
	cc, err := config.Complete()
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver config: %w", err)
	}
	chain, err := app.CreateServerChain(cc)
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver: %w", err)
	}
	prepared, err := chain.PrepareRun()
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver: %w", err)
	}
	a := &apiserver{loopback: rest.CopyConfig(chain.GenericAPIServer.LoopbackClientConfig), done: make(chan error, 1)}
	go func() {
		a.done <- prepared.Run(ctx)
		close(a.done)
	}()
	return a, nil
}

// listenAPI binds the API server's port on 127.0.0.1 and turns "address in
// use" into an actionable message.
func listenAPI(port int) (net.Listener, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err == nil {
		return l, nil
	}
	if strings.Contains(err.Error(), "address already in use") {
		return nil, fmt.Errorf("port %d on 127.0.0.1 is already in use: stop what uses it, or pass --port with another port (--port 0 picks a free one)", port)
	}
	return nil, fmt.Errorf("listening on 127.0.0.1:%d: %w", port, err)
}
