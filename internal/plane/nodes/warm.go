package nodes

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/utils/lifecycle"
)

// warmStages prepares, on one goroutine, what kwok 0.8.0 otherwise builds
// lazily and concurrently: the first match of each stage builds its CEL
// environment, and the CEL library it uses (easycel) caches type
// information in package-level maps without a lock. kwok's pod and node
// workers doing that at once crashed the process ("fatal error: concurrent
// map writes"), seen once among a few dozen plane restarts in the chaos
// suite. Matching every stage
// here against an empty Pod and Node fills those caches with the very types
// the workers use, so later they only read them.
func warmStages(ctx context.Context, stages map[internalversion.StageResourceRef][]*internalversion.Stage) {
	for ref, list := range stages {
		var data any
		switch ref.Kind {
		case "Pod":
			data = &corev1.Pod{}
		case "Node":
			data = &corev1.Node{}
		default:
			continue
		}
		for _, stage := range list {
			lc, err := lifecycle.NewLifecycle([]*internalversion.Stage{stage})
			if err != nil {
				continue
			}
			// Errors (an expression that cannot judge an empty object)
			// do not matter: the environment is built before matching.
			_, _ = lc.Match(ctx, &lifecycle.Event{Data: data})
		}
	}
}
