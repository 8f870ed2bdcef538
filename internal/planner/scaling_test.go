package planner_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestOrderedReadyScaling(t *testing.T) {
	three := steady(testgen.Replicas(3))
	five := steady(testgen.Replicas(5))
	wait := steady(testgen.Replicas(3), testgen.MinReadySeconds(30))
	runScenarios(t, []scenario{{
		name:  "scaling up from zero creates web-0 only",
		f:     three,
		steps: []string{"replicas: CreatePod web-0 at current"},
	}, {
		name:  "the next pod is created once every predecessor is ready",
		f:     three,
		pods:  three.pods(0, 1),
		steps: []string{"replicas: CreatePod web-2 at current"},
	}, {
		name:  "a missing lower ordinal is created before anything above it",
		f:     three,
		pods:  three.pods(1, 2),
		steps: []string{"replicas: CreatePod web-0 at current"},
	}, {
		name:  "scaling up halts on a pod that is running but not ready",
		f:     three,
		pods:  with(three.pods(0), three.pod(1, testgen.NotReady(now))),
		waits: []string{"web-1: Running, not Ready"},
	}, {
		name:  "scaling up halts on a pending pod",
		f:     three,
		pods:  with(three.pods(0), three.pod(1, testgen.Pending())),
		waits: []string{"web-1: Pending"},
	}, {
		name:  "scaling up waits out minReadySeconds on a freshly ready pod",
		f:     wait,
		pods:  with(wait.pods(0), wait.pod(1, testgen.Ready(now.Add(-10*time.Second)))),
		waits: []string{"web-1: Ready, not Available (minReadySeconds 30)"},
	}, {
		name:  "scaling up goes on once minReadySeconds have passed",
		f:     wait,
		pods:  with(wait.pods(0), wait.pod(1, testgen.Ready(now.Add(-30*time.Second)))),
		steps: []string{"replicas: CreatePod web-2 at current"},
	}, {
		name:  "a terminating pod is waited on before later pods are created",
		f:     three,
		pods:  with(three.pods(0), three.pod(1, testgen.Terminating(now))),
		waits: []string{"web-1: Terminating"},
	}, {
		name:  "an observed pod without a phase is waited on, not created again",
		f:     three,
		pods:  with(three.pods(0), three.pod(1, testgen.NoPhase())),
		waits: []string{"web-1: Created, no phase yet"},
	}, {
		name:  "scaling down deletes the highest ordinal first",
		f:     three,
		pods:  three.pods(0, 1, 2, 3, 4),
		steps: []string{"scale down: DeletePod web-4"},
	}, {
		name:  "scaling down deletes the next pod only after its successor is gone",
		f:     three,
		pods:  with(three.pods(0, 1, 2, 3), three.pod(4, testgen.Terminating(now))),
		waits: []string{"web-4: Terminating"},
	}, {
		name:  "scaling down waits until the pods that stay are healthy",
		f:     three,
		pods:  with(three.pods(0, 2, 3, 4), three.pod(1, testgen.NotReady(now))),
		waits: []string{"web-1: Running, not Ready"},
	}, {
		name:  "an unhealthy condemned pod that is the first unavailable one is still deleted",
		f:     three,
		pods:  with(three.pods(0, 1, 2, 3), three.pod(4, testgen.NotReady(now))),
		steps: []string{"scale down: DeletePod web-4"},
	}, {
		name:  "an unhealthy condemned pod blocks while a lower condemned pod is unavailable too",
		f:     three,
		pods:  with(three.pods(0, 1, 2), three.pod(3, testgen.Pending()), three.pod(4, testgen.NotReady(now))),
		waits: []string{"web-4: Running, not Ready"},
	}, {
		name:  "a failed pod is deleted and the pass stops there",
		f:     three,
		pods:  with(three.pods(1), three.pod(0, testgen.Failed())),
		steps: []string{"replicas: DeletePod web-0"},
	}, {
		name:  "a succeeded pod is deleted too",
		f:     three,
		pods:  with(three.pods(0, 2), three.pod(1, testgen.Succeeded())),
		steps: []string{"replicas: DeletePod web-1"},
	}, {
		name:  "a failed pod being deleted is waited on, not recreated yet",
		f:     three,
		pods:  with(three.pods(0), three.pod(1, testgen.Failed(), testgen.Terminating(now))),
		waits: []string{"web-1: Failed, terminating"},
	}, {
		name:  "scaling to zero deletes the highest pod first",
		f:     steady(testgen.Replicas(0)),
		pods:  five.pods(0, 1),
		steps: []string{"scale down: DeletePod web-1"},
	}})
}

func TestStartOrdinal(t *testing.T) {
	f := steady(testgen.Replicas(3), testgen.Start(2))
	runScenarios(t, []scenario{{
		name:  "the first pod is named after the start ordinal",
		f:     f,
		steps: []string{"replicas: CreatePod web-2 at current"},
	}, {
		name:  "moving start up creates the new top ordinal before removing the old bottom ones",
		f:     f,
		pods:  f.pods(0, 1, 2),
		steps: []string{"replicas: CreatePod web-3 at current"},
	}, {
		name:  "pods below the new start are condemned, highest first",
		f:     f,
		pods:  f.pods(0, 1, 2, 3, 4),
		steps: []string{"scale down: DeletePod web-1"},
	}})
}

func TestParallelScaling(t *testing.T) {
	f := steady(testgen.Replicas(3), testgen.Parallel())
	claims := steady(testgen.Replicas(2), testgen.Parallel(), testgen.ClaimTemplates("data"))
	big := steady(testgen.Replicas(8), testgen.Parallel())
	runScenarios(t, []scenario{{
		name: "every missing pod is created, in slow-start batches of 1, 2, 4 … pods",
		f:    big,
		steps: []string{
			"replicas*1: CreatePod web-0 at current",
			"replicas*2: CreatePod web-1 at current", "replicas*2: CreatePod web-2 at current",
			"replicas*3: CreatePod web-3 at current", "replicas*3: CreatePod web-4 at current",
			"replicas*3: CreatePod web-5 at current", "replicas*3: CreatePod web-6 at current",
			"replicas*4: CreatePod web-7 at current",
		},
	}, {
		name: "each pod's claims come right before it, in the pod's own batch",
		f:    claims,
		steps: []string{
			"replicas*1: CreateClaim data-web-0", "replicas*1: CreatePod web-0 at current",
			"replicas*2: CreateClaim data-web-1", "replicas*2: CreatePod web-1 at current",
		},
	}, {
		name:  "pods with nothing to do still count in the batches, as upstream counts them",
		f:     big,
		pods:  big.pods(0, 1, 2),
		steps: []string{"replicas*3: CreatePod web-3 at current", "replicas*3: CreatePod web-4 at current", "replicas*3: CreatePod web-5 at current", "replicas*3: CreatePod web-6 at current", "replicas*4: CreatePod web-7 at current"},
	}, {
		name:  "unready pods do not hold back the others",
		f:     f,
		pods:  []*corev1.Pod{f.pod(0, testgen.Pending()), f.pod(1, testgen.Terminating(now))},
		steps: []string{"replicas*2: CreatePod web-2 at current"},
	}, {
		name: "every condemned pod that is not terminating is deleted, highest ordinal first",
		f:    f,
		pods: with(f.pods(0, 1, 2, 3, 5), f.pod(4, testgen.Terminating(now))),
		steps: []string{
			"scale down*1: DeletePod web-5",
			"scale down*2: DeletePod web-3",
		},
	}, {
		name: "failed pods are deleted and the rest proceeds in the same plan",
		f:    f,
		pods: with(f.pods(0, 3), f.pod(1, testgen.Failed())),
		steps: []string{
			"scale down*1: DeletePod web-3",
			"replicas*2: DeletePod web-1",
			"replicas*2: CreatePod web-2 at current",
		},
	}})
}
