package invariant

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// extHooks gives the set a preUpdate and a preDelete handshake with the
// given failure policy ("" for neither).
func extHooks(policy v1alpha1.HookFailurePolicy) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		h := &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}, TimeoutSeconds: 5, FailurePolicy: policy}
		s.Spec.Lifecycle = &v1alpha1.Lifecycle{PreUpdate: h, PreDelete: h}
	}
}

// hookLabel labels the pod with a hook's state.
func hookLabel(label, state string) podOpt {
	return func(p *corev1.Pod) { p.Labels[label] = state }
}

// hookCases judge RuleHookHalt; TestExtendedRules runs them.
var hookCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name: "scale-in deletes a pod whose Halt preDelete hook never answered",
	history: func() *history {
		h := threeReadyExt(extHooks(v1alpha1.HookHalt))
		h.add(5, modified, mkExt(2, gen(2), extHooks(v1alpha1.HookHalt)))
		h.add(6, modified, mkPod(2, "a", ready, hookLabel(v1alpha1.PreDeleteHookLabel, v1alpha1.HookPending)))
		return h.add(20, modified, mkPod(2, "a", ready, hookLabel(v1alpha1.PreDeleteHookLabel, v1alpha1.HookPending), terminating))
	},
	want: []Rule{RuleHookHalt},
}, {
	name: "scale-in deletes a pod once its preDelete hook answered Done",
	history: func() *history {
		h := threeReadyExt(extHooks(v1alpha1.HookHalt))
		h.add(5, modified, mkExt(2, gen(2), extHooks(v1alpha1.HookHalt)))
		h.add(6, modified, mkPod(2, "a", ready, hookLabel(v1alpha1.PreDeleteHookLabel, v1alpha1.HookPending)))
		h.add(7, modified, mkPod(2, "a", ready, hookLabel(v1alpha1.PreDeleteHookLabel, v1alpha1.HookDone)))
		return h.add(8, modified, mkPod(2, "a", ready, hookLabel(v1alpha1.PreDeleteHookLabel, v1alpha1.HookDone), terminating))
	},
}, {
	name: "under Proceed a pod may go without an answer",
	history: func() *history {
		h := threeReadyExt(extHooks(v1alpha1.HookProceed))
		h.add(5, modified, mkExt(2, gen(2), extHooks(v1alpha1.HookProceed)))
		return h.add(20, modified, mkPod(2, "a", ready, hookLabel(v1alpha1.PreDeleteHookLabel, v1alpha1.HookPending), terminating))
	},
}, {
	name: "a pod deleted by someone else is not the controller's",
	history: func() *history {
		h := threeReadyExt(extHooks(v1alpha1.HookHalt))
		h.external("web-1-a")
		return h.add(20, modified, mkPod(1, "a", ready, terminating))
	},
}, {
	name: "a rollout takes a pod out of service in place before its preUpdate hook answered",
	history: func() *history {
		h := gatedThree(extHooks(v1alpha1.HookHalt))
		return h.add(20, modified, gatedPod(2, corev1.ConditionFalse, true, "app:1"))
	},
	want: []Rule{RuleHookHalt},
}, {
	name: "a rollout takes a pod out of service in place once its preUpdate hook answered",
	history: func() *history {
		h := gatedThree(extHooks(v1alpha1.HookHalt))
		done := gatedPod(2, corev1.ConditionTrue, true, "app:1")
		hookLabel(v1alpha1.PreUpdateHookLabel, v1alpha1.HookDone)(done)
		h.add(19, modified, done)
		off := gatedPod(2, corev1.ConditionFalse, true, "app:1")
		hookLabel(v1alpha1.PreUpdateHookLabel, v1alpha1.HookDone)(off)
		return h.add(20, modified, off)
	},
}}
