package plane

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/component-base/configz"
	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	kcmoptions "k8s.io/kubernetes/cmd/kube-controller-manager/app/options"
)

type controllerManagerFiles struct {
	kubeconfig string
	saKey      string
	caFile     string
	caKey      string
	builtinSTS bool
	qps        float32 // 0 keeps the defaults
	// nodeGrace is --node-monitor-grace-period; 0 keeps upstream's.
	nodeGrace time.Duration
}

// controllerManagerFlags runs every default controller (garbage collector,
// namespace, service accounts and tokens, endpoints, PV binder, disruption,
// node lifecycle …); the StatefulSet controller only when asked for.
func controllerManagerFlags(f controllerManagerFiles) []string {
	controllers := "*,-statefulset-controller"
	if f.builtinSTS {
		controllers = "*"
	}
	flags := []string{
		"--kubeconfig=" + f.kubeconfig,
		"--controllers=" + controllers,
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
		"--service-account-private-key-file=" + f.saKey,
		"--root-ca-file=" + f.caFile,
		"--cluster-signing-cert-file=" + f.caFile,
		"--cluster-signing-key-file=" + f.caKey,
	}
	if f.nodeGrace > 0 {
		flags = append(flags, "--node-monitor-grace-period="+f.nodeGrace.String(), "--node-monitor-period="+nodeMonitorPeriod(f.nodeGrace).String())
	}
	return append(flags, clientLimitFlags(f.qps)...)
}

// clientLimitFlags sets a component's client QPS and burst; qps 0 keeps its
// defaults.
func clientLimitFlags(qps float32) []string {
	if qps == 0 {
		return nil
	}
	return []string{fmt.Sprintf("--kube-api-qps=%g", qps), fmt.Sprintf("--kube-api-burst=%d", int(2*qps))}
}

// startControllerManager runs kube-controller-manager's controllers in this
// process; done receives Run's result when ctx ends.
func startControllerManager(ctx context.Context, f controllerManagerFiles) (<-chan error, error) {
	s, err := kcmoptions.NewKubeControllerManagerOptions()
	if err != nil {
		return nil, fmt.Errorf("kube-controller-manager options: %w", err)
	}
	known, off, aliases := kcm.KnownControllers(), kcm.ControllersDisabledByDefault(), kcm.ControllerAliases()
	fs := pflag.NewFlagSet("kube-controller-manager", pflag.ContinueOnError)
	named := s.Flags(known, off, aliases)
	for _, set := range named.FlagSets {
		fs.AddFlagSet(set)
	}
	if err := fs.Parse(controllerManagerFlags(f)); err != nil {
		return nil, fmt.Errorf("kube-controller-manager flags: %w", err)
	}
	c, err := s.Config(ctx, known, off, aliases)
	if err != nil {
		return nil, fmt.Errorf("kube-controller-manager config: %w", err)
	}
	// configz is process-global; a plane restarted in the same process
	// registers it again.
	configz.Delete(kcm.ConfigzName)
	done := make(chan error, 1)
	go func() {
		done <- kcm.Run(ctx, c.Complete())
		close(done)
	}()
	return done, nil
}
