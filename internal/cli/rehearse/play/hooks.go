package play

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/shape"
)

// answerHooks labels Done every hook the copy's pods are labelled Pending
// for, until ctx ends: the copy's hooks are handshakes (shape.Disarm),
// and the rehearsal is their operator. Its writes are not the
// controller's, so they are not counted.
func answerHooks(ctx context.Context, c kubernetes.Interface, ns string) error {
	f := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithNamespace(ns))
	inf := f.Core().V1().Pods().Informer()
	answer := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		done := map[string]any{}
		for _, l := range shape.HookLabels {
			if pod.Labels[l] == v1alpha1.HookPending {
				done[l] = v1alpha1.HookDone
			}
		}
		if len(done) == 0 {
			return
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": done}})
		if err == nil {
			_, _ = c.CoreV1().Pods(ns).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: answer, UpdateFunc: func(_, obj any) { answer(obj) },
	}); err != nil {
		return fmt.Errorf("answering the copy's hooks: %w", err)
	}
	f.Start(ctx.Done())
	return nil
}
