package invariant

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// configRev is revision name recording that it reads ConfigMap app
// through copy.
func configRev(name, copyName string) *appsv1.ControllerRevision {
	r := mkRev(name)
	r.Annotations = map[string]string{configRefsAnnotation: `[{"kind":"ConfigMap","name":"app","copy":"` + copyName + `"}]`}
	return r
}

// mounts gives the pod a configMap volume of name.
func mounts(name string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}}
	}
}

// reloadRecord gives the pod a reload record of revision, pending or not,
// naming its live ConfigMap of app.
func reloadRecord(revision string, pending bool) podOpt {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		pend := "false"
		if pending {
			pend = "true"
		}
		p.Annotations[configReloadAnnotation] = `{"revision":"` + revision + `","pending":` + pend + `,"live":[{"name":"` + p.Name + `.app","source":"app"}]}`
	}
}

// liveCM is pod web-<ord>'s live ConfigMap of app holding copyName.
func liveCM(ord int32, copyName string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: podName("web", ord) + ".app", Namespace: ns,
		Labels: map[string]string{configLiveOfLabel: "app"}, Annotations: map[string]string{configCopyAnnotation: copyName}}}
}

// configHistory is three Ready pods of an extended set at web-r1, whose
// revisions web-r1 and web-r2 read ConfigMap app through app-1 and app-2.
func configHistory(pod func(ord int32, opts ...podOpt) *corev1.Pod) *history {
	h := &history{}
	h.add(0, added, mkExt(3, extRevisions("web-r1", "web-r2")))
	h.add(0.01, added, configRev("web-r1", "app-1")).add(0.02, added, configRev("web-r2", "app-2"))
	for i := range int32(3) {
		h.add(0.1+float64(i), added, pod(i)).add(0.5+float64(i), modified, pod(i, ready))
	}
	return h
}

func restartPod(ord int32, opts ...podOpt) *corev1.Pod {
	return mkPod(ord, "a", append([]podOpt{mounts("app-1")}, opts...)...)
}

func reloadPod(ord int32, opts ...podOpt) *corev1.Pod {
	return mkPod(ord, "a", append([]podOpt{mounts(podName("web", ord) + ".app"), reloadRecord("web-r1", false)}, opts...)...)
}

// reloadHistory is configHistory under Reload: each pod mounts its live
// ConfigMap, written with app-1 before the pod was made.
func reloadHistory() *history {
	h := &history{}
	h.add(0, added, mkExt(3, extRevisions("web-r1", "web-r2")))
	h.add(0.01, added, configRev("web-r1", "app-1")).add(0.02, added, configRev("web-r2", "app-2"))
	for i := range int32(3) {
		h.add(0.05+float64(i), added, liveCM(i, "app-1"))
		h.add(0.1+float64(i), added, reloadPod(i)).add(0.5+float64(i), modified, reloadPod(i, ready))
	}
	return h
}

// configCases judge RuleConfigCopies; TestConfigCopies runs them.
var configCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name:    "pods reading their revision's copy are fine",
	history: func() *history { return configHistory(restartPod) },
}, {
	name: "a pod recreated at the new revision reading its copy is fine",
	history: func() *history {
		h := configHistory(restartPod)
		h.add(5, modified, restartPod(2, ready, terminating)).add(5.5, deleted, restartPod(2, ready, terminating))
		return h.add(6, added, mkPod(2, "b", rev("web-r2"), mounts("app-2")))
	},
}, {
	name: "a pod labelled web-r2 reading web-r1's copy breaks config-copies",
	history: func() *history {
		return configHistory(restartPod).add(5, modified, restartPod(2, ready, rev("web-r2")))
	},
	want: []Rule{RuleConfigCopies},
}, {
	name: "a reload: the live ConfigMap written, the record pending, then the label moves, is fine",
	history: func() *history {
		h := reloadHistory()
		h.add(5, modified, liveCM(2, "app-2"))
		h.add(5.1, modified, reloadPod(2, ready, reloadRecord("web-r2", true)))
		return h.add(6, modified, reloadPod(2, ready, rev("web-r2"), reloadRecord("web-r2", false)))
	},
}, {
	name: "a label that moves before the live ConfigMap holds the new copy breaks config-copies",
	history: func() *history {
		h := reloadHistory()
		h.add(5.1, modified, reloadPod(2, ready, reloadRecord("web-r2", true)))
		return h.add(6, modified, reloadPod(2, ready, rev("web-r2"), reloadRecord("web-r2", false)))
	},
	want: []Rule{RuleConfigCopies},
}, {
	name: "a live ConfigMap rewritten under a settled pod is caught at the pod's next version",
	history: func() *history {
		h := reloadHistory()
		h.add(5, modified, liveCM(1, "app-2"))
		return h.add(6, modified, reloadPod(1, readySince(6)))
	},
	want: []Rule{RuleConfigCopies},
}}
