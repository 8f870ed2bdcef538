package plane

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/config/crd"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/plane/dns"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/provisioner"
	"github.com/ordinal-sh/ordinal/internal/plane/realnode"
)

// Stage timeouts. They are generous because a cold 2-core machine is slow,
// and each failure message names the stage that did not become ready.
const (
	apiReadyTimeout   = 90 * time.Second
	stageReadyTimeout = 60 * time.Second
	stopTimeout       = 4 * time.Second
)

// kcmStarted enforces one controller-manager per process; see Start.
var kcmStarted atomic.Bool

// Plane is a running control plane. All methods are safe for concurrent use.
type Plane struct {
	cfg        Config
	dir        *dataDir
	kubeconfig string
	rest       *rest.Config
	serverURL  string
	ready      chan struct{}
	errc       chan error

	etcd        *embed.Etcd
	stopAPI     context.CancelFunc
	apiDone     <-chan error
	stopClients context.CancelFunc
	clientsDone sync.WaitGroup

	dns       *dns.Server
	realHost  *realnode.Host
	realCreds *realNodeCreds
	realNode  *realnode.Node
	logFiles  []*os.File
	closeOnce sync.Once
	closeErr  error
}

// Start brings the plane up stage by stage, each gated on the previous being
// ready: data directory and credentials, etcd, kube-apiserver, the
// extended StatefulSet's CRD (Established), the controller-manager's
// controllers, the scheduler, the simulated nodes, the storage provisioner,
// the cluster DNS and the StatefulSet controller. It returns once every
// stage is ready. On any error the stages already started are stopped again
// and the data directory is left as it was found, apart from credentials
// generated for the first time.
//
// A process runs at most one plane: kube-controller-manager registers
// process-global names that it never releases, so a second Start in the same
// process (even after Close) is refused. Run further planes as processes.
func Start(ctx context.Context, cfg Config) (*Plane, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := enableFeatureGates(cfg.FeatureGates); err != nil {
		return nil, err
	}
	p := &Plane{cfg: cfg, ready: make(chan struct{}), errc: make(chan error, 1)}
	if err := p.start(ctx); err != nil {
		_ = p.Close()
		return nil, err
	}
	close(p.ready)
	return p, nil
}

// Ready is closed once every stage is ready; Start returns only after that,
// so it is closed for every plane a caller holds.
func (p *Plane) Ready() <-chan struct{} { return p.ready }

// Err delivers the first failure of a component after Start returned; the
// plane should then be closed.
func (p *Plane) Err() <-chan error { return p.errc }

// RESTConfig returns a copy of the admin client configuration.
func (p *Plane) RESTConfig() *rest.Config { return rest.CopyConfig(p.rest) }

// KubeconfigPath is the admin kubeconfig, DATA_DIR/kubeconfig, mode 0600.
func (p *Plane) KubeconfigPath() string { return p.kubeconfig }

// Server is the API server's URL.
func (p *Plane) Server() string { return p.serverURL }

// DataDir is the absolute data directory.
func (p *Plane) DataDir() string { return p.dir.root }

// maxSocketPath is the longest path a Unix socket may have here.
const maxSocketPath = 107

// SimulatedPodsSocket is the Unix socket where the simulated pods answer
// role probes (a controller run beside the plane takes it as
// --simulated-pods-socket), or "" when the data directory's path is too
// long for a socket.
func (p *Plane) SimulatedPodsSocket() string {
	path := p.dir.path(nodes.ProbeSocketName)
	if len(path) > maxSocketPath {
		return ""
	}
	return path
}

func (p *Plane) start(ctx context.Context) error {
	var err error
	if p.dir, err = openDataDir(p.cfg.DataDir); err != nil {
		return err
	}
	creds, err := loadCredentials(p.dir)
	if err != nil {
		return err
	}
	if err := p.prepareRealNode(ctx, creds); err != nil {
		return err
	}
	listener, err := p.listenAPIFor(p.cfg.Port)
	if err != nil {
		return err
	}
	p.serverURL = "https://" + listener.Addr().String()
	if err := creds.writeKubeconfigs(p.dir, p.serverURL); err != nil {
		_ = listener.Close()
		return err
	}
	p.kubeconfig = p.dir.path("kubeconfig")
	if p.rest, err = clientcmd.BuildConfigFromFlags("", p.kubeconfig); err != nil {
		_ = listener.Close()
		return fmt.Errorf("loading %s: %w", p.kubeconfig, err)
	}
	p.rest.QPS, p.rest.Burst = 200, 400
	return p.startStages(ctx, creds, listener)
}

func (p *Plane) startStages(ctx context.Context, creds *credentials, listener net.Listener) error {
	began := time.Now()
	var err error
	p.etcd, _, err = p.startEtcdStage(ctx, creds, listener)
	if err != nil {
		return err
	}
	p.cfg.logf("etcd ready (%s)", since(began))
	if err := p.startAPIStage(ctx, creds, listener); err != nil {
		return err
	}
	p.cfg.logf("kube-apiserver ready on %s (%s)", p.serverURL, since(began))
	if err := p.startCRDStage(ctx); err != nil {
		return err
	}
	p.cfg.logf("CustomResourceDefinition %s established (%s)", crd.StatefulSetName, since(began))
	clientsCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.stopClients = cancel
	client, err := kubernetes.NewForConfig(p.rest)
	if err != nil {
		return fmt.Errorf("admin client: %w", err)
	}
	if err := p.startControllerManagerStage(clientsCtx, creds, client); err != nil {
		return err
	}
	p.cfg.logf("kube-controller-manager ready (%s)", since(began))
	if err := p.watch("kube-scheduler", func() (<-chan error, error) {
		return startScheduler(clientsCtx, creds.kubeconfig(p.dir, "scheduler"), p.cfg.ComponentQPS)
	}); err != nil {
		return err
	}
	p.cfg.logf("kube-scheduler started (%s)", since(began))
	if err := p.startNodesStage(clientsCtx, creds, client); err != nil {
		return err
	}
	p.cfg.logf("%d simulated nodes ready (%s)", p.cfg.Nodes, since(began))
	if err := p.startStorageStage(clientsCtx, client); err != nil {
		return err
	}
	p.cfg.logf("storage provisioner ready, default StorageClass %q (%s)", storageClassName, since(began))
	if err := p.startDNSStage(clientsCtx, client); err != nil {
		return err
	}
	if p.dns != nil {
		p.cfg.logf("cluster DNS for %s on %s (%s)", p.dns.Zone(), p.dns.Addr(), since(began))
	}
	if err := p.startRealNodeStage(clientsCtx, creds, client); err != nil {
		return err
	}
	if p.realNode != nil {
		p.cfg.logf("real node %s ready, pods on %s, logs in %s (%s)", p.realNode.Name(), realnode.DefaultPodCIDR, p.realNode.LogDir(), since(began))
	}
	if err := p.startEvictionRequestStage(clientsCtx, client); err != nil {
		return err
	}
	if err := p.startStatefulSetStage(clientsCtx); err != nil {
		return err
	}
	p.cfg.logf("StatefulSet controller: %s (%s)", p.cfg.StatefulSetController, since(began))
	return nil
}

func (p *Plane) startEtcdStage(ctx context.Context, creds *credentials, listener net.Listener) (*embed.Etcd, string, error) {
	e, url, err := startEtcd(ctx, p.dir, creds.etcdServing, creds.etcdCA.CAFile(), p.cfg.UnsafeNoFsync)
	if err != nil {
		_ = listener.Close()
		return nil, "", err
	}
	creds.etcdURL = url
	return e, url, nil
}

func (p *Plane) startAPIStage(ctx context.Context, creds *credentials, listener net.Listener) error {
	apiCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.stopAPI = cancel
	a, err := startAPIServer(apiCtx, apiserverFiles{
		serving: creds.apiServing, etcdCl: creds.etcdClient, caFile: creds.ca.CAFile(), etcdCAFile: creds.etcdCA.CAFile(),
		saKey: creds.saKey, saPub: creds.saPub, etcdURL: creds.etcdURL, listener: listener,
		advertise: p.realNodeGateway(), kubeletClient: p.realCreds.apiserverKubeletClient(),
		evictionRequests: evictionRequestsOn(),
	})
	if err != nil {
		_ = listener.Close()
		return err
	}
	p.apiDone = a.done
	client, err := kubernetes.NewForConfig(p.rest)
	if err != nil {
		return fmt.Errorf("admin client: %w", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, apiReadyTimeout, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-a.done:
			return false, fmt.Errorf("kube-apiserver exited: %w", err)
		default:
		}
		var code int
		client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&code)
		return code == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("kube-apiserver did not become ready: %w", err)
	}
	return nil
}

func (p *Plane) startControllerManagerStage(ctx context.Context, creds *credentials, client kubernetes.Interface) error {
	if kcmStarted.Swap(true) {
		return errors.New("this process already ran a control plane's controller-manager; start another plane in its own process (`ordinal up`)")
	}
	err := p.watch("kube-controller-manager", func() (<-chan error, error) {
		return startControllerManager(ctx, controllerManagerFiles{
			kubeconfig: creds.kubeconfig(p.dir, "controller-manager"), saKey: creds.saKey,
			caFile: creds.ca.CAFile(), caKey: creds.caKey(), builtinSTS: p.cfg.StatefulSetController == ControllerBuiltin,
			qps: p.cfg.ComponentQPS, nodeGrace: p.cfg.NodeMonitorGracePeriod,
		})
	})
	if err != nil {
		return err
	}
	// The service-account controller creating "default" in "default" shows
	// the controllers run and can write.
	return p.waitFor(ctx, "kube-controller-manager (default service account)", func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
}

func (p *Plane) startNodesStage(ctx context.Context, creds *credentials, client kubernetes.Interface) error {
	logFile, err := os.OpenFile(p.dir.path("logs", "nodes.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening the simulated nodes' log: %w", err)
	}
	p.logFiles = append(p.logFiles, logFile)
	err = nodes.Start(ctx, nodes.Config{Kubeconfig: creds.kubeconfig(p.dir, "nodes"), Count: p.cfg.Nodes, FQDN: p.cfg.FQDNNodes, Zones: p.cfg.Zones, ReadyDelay: p.cfg.ReadyDelay,
		LeaseDuration: nodeLeaseDuration(p.cfg.NodeMonitorGracePeriod), Log: logFile, ProbeSocket: p.SimulatedPodsSocket()})
	if err != nil {
		return err
	}
	return p.waitFor(ctx, "simulated nodes", func(ctx context.Context) (bool, error) {
		n, err := nodes.CountReady(ctx, client, nodes.Names(p.cfg.Nodes, p.cfg.FQDNNodes))
		return err == nil && n == p.cfg.Nodes, nil
	})
}

func (p *Plane) startStorageStage(ctx context.Context, client kubernetes.Interface) error {
	pcfg := provisioner.Config{Client: client, Root: p.dir.path("volumes"), Name: provisionerName, StorageClass: storageClassName}
	if err := provisioner.EnsureStorageClass(ctx, client, pcfg); err != nil {
		return fmt.Errorf("default StorageClass: %w", err)
	}
	prov, err := provisioner.New(pcfg)
	if err != nil {
		return fmt.Errorf("storage provisioner: %w", err)
	}
	p.goClient("storage provisioner", prov.Run, ctx)
	return nil
}

func (p *Plane) startDNSStage(ctx context.Context, client kubernetes.Interface) error {
	if p.cfg.DNSAddress == "" {
		return nil
	}
	s, err := dns.Start(ctx, dns.Config{Client: client, Address: p.cfg.DNSAddress, AlsoAddresses: p.dnsAlsoAddresses()})
	if err != nil {
		return err
	}
	p.dns = s
	return nil
}

// DNSAddr is the cluster DNS's address (host:port, UDP and TCP), or ""
// when it does not run.
func (p *Plane) DNSAddr() string {
	if p.dns == nil {
		return ""
	}
	return p.dns.Addr()
}

func (p *Plane) startStatefulSetStage(ctx context.Context) error {
	if p.cfg.StatefulSetController != ControllerOrdinal {
		return nil
	}
	cfg := p.RESTConfig()
	ctrl := p.cfg.Controller
	ctrl.Namespace = ""
	// The controller's one gate follows the plane's, as upstream's
	// controller in this process does.
	ctrl.FeatureGates = map[string]bool{controller.GateRecreate: utilfeature.DefaultFeatureGate.Enabled(controller.GateRecreate)}
	ctrl.Client(cfg)
	kubeclient.UseProtobuf(cfg)
	limiter := controller.Throttle(cfg)
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("StatefulSet controller client: %w", err)
	}
	ctrl.SimulatedPodsSocket = p.SimulatedPodsSocket()
	opts := ctrl.Options(limiter.Busy, cfg.Host)
	if opts.Extended, err = kubeclient.ExtendedClient(cfg); err != nil {
		return err
	}
	run := func(ctx context.Context) error {
		return controller.Run(ctx, client, opts)
	}
	p.goClient("ordinal StatefulSet controller", run, ctx)
	return nil
}

// watch starts a component whose result arrives on a channel and reports an
// early exit through Err.
func (p *Plane) watch(name string, start func() (<-chan error, error)) error {
	done, err := start()
	if err != nil {
		return err
	}
	p.clientsDone.Add(1)
	go func() {
		defer p.clientsDone.Done()
		err, ok := <-done
		if ok && err != nil {
			p.fail(fmt.Errorf("%s stopped: %w", name, err))
		}
	}()
	return nil
}

// goClient runs fn until ctx ends, reporting an error through Err.
func (p *Plane) goClient(name string, fn func(context.Context) error, ctx context.Context) {
	p.clientsDone.Add(1)
	go func() {
		defer p.clientsDone.Done()
		if err := fn(ctx); err != nil && ctx.Err() == nil {
			p.fail(fmt.Errorf("%s stopped: %w", name, err))
		}
	}()
}

func (p *Plane) fail(err error) {
	select {
	case p.errc <- err:
	default:
	}
}

func (p *Plane) waitFor(ctx context.Context, what string, cond wait.ConditionWithContextFunc) error {
	return p.waitForWithin(ctx, what, stageReadyTimeout, cond)
}

func (p *Plane) waitForWithin(ctx context.Context, what string, timeout time.Duration, cond wait.ConditionWithContextFunc) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-p.errc:
			return false, err
		default:
		}
		return cond(ctx)
	})
	if err != nil {
		return fmt.Errorf("%s did not become ready: %w", what, err)
	}
	return nil
}

// Close stops the plane and is safe to call more than once. Shutdown order:
//  1. the real node, if any: its kubelet, kube-proxy, pods and containerd
//     (see realnode.Node.Close);
//  2. the API clients — StatefulSet controller, cluster DNS, provisioner,
//     simulated nodes, scheduler, controller-manager — so nothing writes
//     during shutdown;
//  3. kube-apiserver;
//  4. etcd, which syncs its data to disk;
//  5. the real node's bridge and forwarding guard;
//  6. the data-directory lock.
//
// Each step waits a bounded time, so Close returns within about 10 s
// (a real node's pods and processes add up to a minute at worst).
func (p *Plane) Close() error {
	p.closeOnce.Do(func() {
		realErr := p.closeRealNode()
		if p.dns != nil {
			_ = p.dns.Close()
		}
		if p.stopClients != nil {
			p.stopClients()
			waitGroup(&p.clientsDone, stopTimeout)
		}
		if p.stopAPI != nil {
			p.stopAPI()
			select {
			case <-p.apiDone:
			case <-time.After(stopTimeout):
				p.closeErr = errors.New("kube-apiserver did not stop in time")
			}
		}
		if p.etcd != nil {
			p.etcd.Close()
		}
		if p.realHost != nil {
			p.realHost.Close()
		}
		if realErr != nil {
			p.closeErr = errors.Join(p.closeErr, fmt.Errorf("stopping the real node: %w", realErr))
		}
		for _, f := range p.logFiles {
			_ = f.Close()
		}
		if p.dir != nil {
			p.dir.release()
		}
	})
	return p.closeErr
}

// DefaultFeatureGates are the gates the plane sets unless
// Config.FeatureGates says otherwise. There are none: 1.37's defaults
// apply, among them MaxUnavailableStatefulSet on (1.35.4 to 1.36 shipped
// it off, and the plane turned it on) and the alpha
// StatefulSetRecreateStrategy off.
func DefaultFeatureGates() map[string]bool {
	return map[string]bool{}
}

// featureGates is DefaultFeatureGates with the explicit gates over it.
func featureGates(explicit map[string]bool) map[string]bool {
	gates := DefaultFeatureGates()
	maps.Copy(gates, explicit)
	return gates
}

// enableFeatureGates sets, process-wide, the default gates and the
// explicit ones over them. The gates are global, so a builtin StatefulSet
// controller in this process follows them too.
func enableFeatureGates(explicit map[string]bool) error {
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(featureGates(explicit)); err != nil {
		return fmt.Errorf("setting feature gates: %w", err)
	}
	return nil
}

func waitGroup(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}

func since(t time.Time) string { return time.Since(t).Round(100 * time.Millisecond).String() }
