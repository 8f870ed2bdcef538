package plane

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"k8s.io/component-base/configz"
	sched "k8s.io/kubernetes/cmd/kube-scheduler/app"
	schedoptions "k8s.io/kubernetes/cmd/kube-scheduler/app/options"
)

// startScheduler runs kube-scheduler in this process with its own
// least-privilege identity (system:kube-scheduler).
func startScheduler(ctx context.Context, kubeconfig string, qps float32) (<-chan error, error) {
	opts := schedoptions.NewOptions()
	fs := pflag.NewFlagSet("kube-scheduler", pflag.ContinueOnError)
	for _, set := range opts.Flags.FlagSets {
		fs.AddFlagSet(set)
	}
	args := append([]string{"--kubeconfig=" + kubeconfig, "--leader-elect=false", "--secure-port=0"}, clientLimitFlags(qps)...)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("kube-scheduler flags: %w", err)
	}
	configz.Delete("componentconfig")
	cc, s, err := sched.Setup(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("kube-scheduler: %w", err)
	}
	done := make(chan error, 1)
	go func() {
		done <- sched.Run(ctx, cc, s)
		close(done)
	}()
	return done, nil
}
