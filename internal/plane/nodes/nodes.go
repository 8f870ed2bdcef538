// Package nodes runs Ordinal's simulated nodes: kwok's controllers, in this
// process, play the kubelet for a set of fake Node objects. Pods scheduled on
// them start, turn Ready, fail or terminate according to the stages in
// pod-stages.yaml, so StatefulSet behaviour can be rehearsed without
// containers. What kwok's stages cannot express, the changes of a running
// pod's spec in place (a new image restarts its container, a resize goes
// through the kubelet's conditions) and its readiness gates, is played by a
// small controller in Go (inplace.go, planned by planPod). A leader
// election among a set's pods that ask for one is played by another
// (election.go, planned by planElection). A node can be failed, fenced
// and restored as on a real cluster (faults.go, `ordinal node`), and any
// cluster's node drained as kubectl drain does (drain.go).
package nodes

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	nodeinit "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodeheartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/client/clientset/versioned"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/controllers"
	kwoklog "sigs.k8s.io/kwok/pkg/log"
	kwokclient "sigs.k8s.io/kwok/pkg/utils/client"
)

// Annotations that steer a simulated pod; see pod-stages.yaml.
const (
	AnnotationBehavior   = "sim.ordinal.dev/behavior"
	AnnotationReadyDelay = "sim.ordinal.dev/ready-delay"
	AnnotationStopDelay  = "sim.ordinal.dev/stop-delay"
)

// Values of AnnotationBehavior.
const (
	BehaviorReady          = "ready"
	BehaviorNeverReady     = "never-ready"
	BehaviorCrashLoop      = "crash-loop"
	BehaviorFail           = "fail"
	BehaviorImagePullError = "image-pull-error"
)

// managedAnnotation marks the nodes kwok plays the kubelet for.
const managedAnnotation = "kwok.x-k8s.io/node"

// ManagedAnnotations are the annotations of a Node the simulated nodes
// play the kubelet of: kwok's mark, and no node TTL. A Node created with
// them, of any name, labels, taints and allocatable, becomes Ready.
func ManagedAnnotations() map[string]string {
	return map[string]string{managedAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"}
}

//go:embed pod-stages.yaml
var podStages string

// Config describes the simulated nodes.
type Config struct {
	// Kubeconfig is the path of a kubeconfig with rights to manage nodes,
	// node leases, pods and events.
	Kubeconfig string
	// Count is how many nodes to keep: ordinal-node-0 … ordinal-node-(Count-1).
	Count int
	// FQDN is how many of them, the last ones, are named by a fully
	// qualified name whose first label is their kubernetes.io/hostname
	// label (Names): a node's name and its hostname label differ on many
	// clusters, and what pins a local volume is the label.
	FQDN int
	// Zones spreads the nodes over zones round robin: node i gets
	// ZoneLabel zone-(i mod Zones); 0 gives no node the label.
	Zones int
	// ReadyDelay is the default time from container start to Ready.
	ReadyDelay time.Duration
	// LeaseDuration is the nodes' Lease duration; they renew it every
	// quarter of it, as a kubelet does. 0 means a kubelet's default, 40s.
	LeaseDuration time.Duration
	// Log receives kwok's own log lines.
	Log io.Writer
	// ProbeSocket, when set, is the path of a Unix socket where the
	// simulated pods answer role probes (probes.go).
	ProbeSocket string
}

// PodCIDR is the range the simulated pods get their addresses from (the
// first address, then on); nothing routes it.
const PodCIDR = "10.244.0.1/16"

// nodePrefix starts every simulated node's name.
const nodePrefix = "ordinal-node-"

// NodeName is the name of the i-th simulated node when it is not one of
// the FQDN nodes; it is every node's kubernetes.io/hostname label
// (Hostname).
func NodeName(i int) string { return nodePrefix + strconv.Itoa(i) }

// Hostname is the kubernetes.io/hostname label of the i-th simulated node,
// whatever its name: select a node by this label, never by its name.
func Hostname(i int) string { return NodeName(i) }

// FQDNDomain is the domain of the nodes named by a fully qualified name
// (Config.FQDN): ordinal-node-2.nodes.ordinal.internal, whose hostname
// label is ordinal-node-2, as a cloud's node named by its DNS name is
// labelled with the machine's short hostname.
const FQDNDomain = "nodes.ordinal.internal"

// Names are the names of count simulated nodes, of which the last fqdn
// are named by a fully qualified name.
func Names(count, fqdn int) []string {
	out := make([]string, count)
	for i := range out {
		out[i] = NodeName(i)
		if i >= count-fqdn {
			out[i] += "." + FQDNDomain
		}
	}
	return out
}

// Start registers the nodes and starts kwok's controllers and the in-place
// part of the simulated kubelet (inplace.go); they stop when ctx ends. It returns once the controllers run; use WaitReady to wait for
// the nodes.
func Start(ctx context.Context, cfg Config) error {
	if cfg.Log != nil {
		ctx = kwoklog.NewContext(ctx, kwoklog.NewLogger(cfg.Log, kwoklog.LevelInfo))
	}
	stages, err := loadStages(cfg.ReadyDelay)
	if err != nil {
		return err
	}
	cs, err := kwokclient.NewClientset("", cfg.Kubeconfig)
	if err != nil {
		return fmt.Errorf("simulated nodes: %w", err)
	}
	ctrl, typed, err := newController(cs, stages, leaseSeconds(cfg.LeaseDuration))
	if err != nil {
		return err
	}
	if err := registerNodes(ctx, typed, cfg.Count, cfg.FQDN, cfg.Zones); err != nil {
		return err
	}
	ip, err := newInPlace(typed, cfg.ReadyDelay)
	if err != nil {
		return err
	}
	el, err := newElection(typed)
	if err != nil {
		return err
	}
	if cfg.ProbeSocket != "" {
		if err := serveProbes(ctx, cfg.ProbeSocket, el.indexer); err != nil {
			return err
		}
	}
	warmStages(ctx, stages)
	if err := ctrl.Start(ctx); err != nil {
		return fmt.Errorf("starting simulated nodes: %w", err)
	}
	go ip.run(ctx)
	go el.run(ctx)
	return nil
}

// leaseSeconds is d in whole seconds, at least 1; 0 means 40.
func leaseSeconds(d time.Duration) uint {
	if d == 0 {
		return 40
	}
	return uint(max(1, d/time.Second))
}

func newController(cs kwokclient.Clientset, stages map[internalversion.StageResourceRef][]*internalversion.Stage, leaseSeconds uint) (*controllers.Controller, kubernetes.Interface, error) {
	restConfig, err := cs.ToRESTConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("simulated nodes: %w", err)
	}
	// ToRESTConfig returns the clientset's own config, so wrapping it here
	// guards every client built from it below.
	restConfig.Wrap(func(rt http.RoundTripper) http.RoundTripper { return deleteGuard{next: rt} })
	dyn, err := cs.ToDynamicClient()
	if err != nil {
		return nil, nil, fmt.Errorf("simulated nodes: %w", err)
	}
	mapper, err := cs.ToRESTMapper()
	if err != nil {
		return nil, nil, fmt.Errorf("simulated nodes: %w", err)
	}
	restClient, err := rest.RESTClientFor(restConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("simulated nodes: %w", err)
	}
	typed, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("simulated nodes: %w", err)
	}
	kwokTyped, err := versioned.NewForConfig(restConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("simulated nodes: %w", err)
	}
	ctrl, err := controllers.NewController(controllers.Config{
		Clock:                             clock.RealClock{},
		DynamicClient:                     dyn,
		RESTClient:                        restClient,
		RESTMapper:                        mapper,
		ImpersonatingDynamicClient:        cs.ToImpersonatingDynamicClient(),
		ImpersonatingTypedClient:          cs.ToImpersonatingTypedClient(),
		TypedClient:                       typed,
		TypedKwokClient:                   kwokTyped,
		ManageNodesWithAnnotationSelector: managedAnnotation + "=fake",
		CIDR:                              PodCIDR,
		NodeIP:                            "10.240.0.1",
		LocalStages:                       stages,
		PodPlayStageParallelism:           16,
		NodePlayStageParallelism:          4,
		NodeLeaseDurationSeconds:          leaseSeconds,
		NodeLeaseParallelism:              4,
		PodsOnNodeSyncParallelism:         4,
		ID:                                "ordinal-nodes",
	})
	if err != nil {
		return nil, nil, fmt.Errorf("simulated nodes: %w", err)
	}
	return ctrl, typed, nil
}

// loadStages parses kwok's published node stages and our pod stages.
func loadStages(readyDelay time.Duration) (map[internalversion.StageResourceRef][]*internalversion.Stage, error) {
	docs := []string{nodeinit.DefaultNodeInit, nodeheartbeat.DefaultNodeHeartbeatWithLease}
	pods := strings.ReplaceAll(podStages, "{{READY_DELAY_MS}}", strconv.FormatInt(readyDelay.Milliseconds(), 10))
	docs = append(docs, strings.Split(pods, "\n---\n")...)
	out := map[internalversion.StageResourceRef][]*internalversion.Stage{}
	for _, doc := range docs {
		stage, err := config.UnmarshalWithType[*internalversion.Stage](doc)
		if err != nil {
			return nil, fmt.Errorf("simulated nodes: parsing stage: %w", err)
		}
		out[stage.Spec.ResourceRef] = append(out[stage.Spec.ResourceRef], stage)
	}
	return out, nil
}

// ZoneLabel is the well-known label of a node's zone.
const ZoneLabel = "topology.kubernetes.io/zone"

// ZoneOf is the zone of the i-th of the simulated nodes spread over
// zones; "" when zones is 0.
func ZoneOf(i, zones int) string {
	if zones <= 0 {
		return ""
	}
	return "zone-" + strconv.Itoa(i%zones)
}

// registerNodes creates the missing Node objects, the last fqdn of them
// named by a fully qualified name (Names). Existing ones, and nodes beyond
// count from an earlier run, are left as they are.
func registerNodes(ctx context.Context, c kubernetes.Interface, count, fqdn, zones int) error {
	for i, name := range Names(count, fqdn) {
		node := newNode(name, Hostname(i))
		if zone := ZoneOf(i, zones); zone != "" {
			node.Labels[ZoneLabel] = zone
		}
		_, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("registering node %s: %w", name, err)
		}
	}
	return nil
}

// newNode is a simulated node called name whose kubernetes.io/hostname
// label is hostname.
func newNode(name, hostname string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        name,
		Annotations: ManagedAnnotations(),
		Labels: map[string]string{
			corev1.LabelHostname: hostname, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "type": "kwok",
		},
	}}
}

// CountReady returns how many of the nodes called names are Ready.
func CountReady(ctx context.Context, c kubernetes.Interface, names []string) (int, error) {
	ready := 0
	for _, name := range names {
		n, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return ready, err
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	return ready, nil
}
