package planner

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
)

// Reload (spec.configRevisions.apply Reload) brings a pod to a revision
// that differs from its own only in the data of ConfigMaps its volumes
// read, without a restart. A pod made under Reload mounts its own live
// ConfigMaps (configrev.LiveVolumes), and its ConfigReloadAnnotation
// records whose data they hold. For one pod, in the rolling update's
// order and budget:
//  1. ReloadPod writes the new revision's data into the live ConfigMaps,
//     then records it on the pod (Pending). The pod update makes the
//     kubelet sync the pod, and its sync refreshes configMap volumes;
//  2. the reload hook, if the set has one, tells the application (it
//     starts with a second pod update, so the kubelet has synced twice
//     before the first call);
//  3. once it is Done (or failed under Proceed) a patch moves the pod's
//     revision label and clears Pending.
//
// Until then the pod counts as disrupted (inPlaceBusy): maxUnavailable 1
// reloads one pod at a time. A pod whose target changes meanwhile (a
// newer revision, a rollback, a partition above it) is reloaded again to
// it; one whose target cannot be reached by a reload is recreated.

// ReloadPod is the action that writes a pod's live ConfigMaps (Config)
// and then patches the pod's reload record (Patch, naming its UID).
const ReloadPod Kind = "ReloadPod"

// EventConfigReloaded is the Normal event of a pod moved to a revision by
// a reload.
const EventConfigReloaded = "ConfigReloaded"

// reloading reports whether the set reloads its pods' data.
func (p *planner) reloading() bool {
	return p.ext != nil && p.ext.Reload != nil
}

// recordsOf is what revision name says of the objects it reads through
// copies; nil when it is not known or says nothing.
func (p *planner) recordsOf(name string) []configrev.Record {
	for _, rev := range append([]*appsv1.ControllerRevision{p.in.Update, p.in.Current}, p.in.Observed.Revisions...) {
		if rev != nil && rev.Name == name {
			records, _ := configrev.Records(rev)
			return records
		}
	}
	return nil
}

// reloadVolumes points a pod the planner builds at its live ConfigMaps
// and records whose data they are to hold (written before the pod is
// created: createReplica's action carries them).
func (p *planner) reloadVolumes(pod *corev1.Pod) {
	if !p.reloading() {
		return
	}
	rev := podRevision(pod)
	live := configrev.LiveVolumes(pod, p.recordsOf(rev))
	if len(live) == 0 {
		return
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[v1alpha1.ConfigReloadAnnotation] = configrev.ReloadRecord{Revision: rev, Time: p.stamp(), Live: live}.Encode()
}

func (p *planner) stamp() time.Time { return p.in.Now.UTC().Truncate(time.Second) }

// liveWrites is what the executor writes before it creates pod: its live
// ConfigMaps with their copies; nil for a pod made without them.
func liveWrites(pod *corev1.Pod) []configrev.Live {
	rec, ok := configrev.ReloadOf(pod.Annotations)
	if !ok {
		return nil
	}
	return rec.Live
}

// reloadBusy reports whether pod is in the middle of a reload: its live
// ConfigMaps hold another revision's data than its label says, or the
// application has not been told.
func (p *planner) reloadBusy(pod *corev1.Pod) bool {
	if !p.reloading() {
		return false
	}
	rec, ok := configrev.ReloadOf(pod.Annotations)
	return ok && (rec.Pending || rec.Revision != podRevision(pod))
}

// reloadsTo reports whether the set reloads and the pod in s can go to
// revision to by a reload.
func (p *planner) reloadsTo(s slot, to string) bool {
	if !p.reloading() {
		return false
	}
	ok, _ := p.reloadable(s, to)
	return ok
}

// reloadable says whether the pod in s can go from its revision to to
// by a reload, and if not, why. The shapes depend only on the two
// revisions and the ordinal's overrides (groupKey), so each pair is
// compared once per plan.
func (p *planner) reloadable(s slot, to string) (bool, string) {
	if _, ok := configrev.ReloadOf(s.pod.Annotations); !ok {
		return false, "it was made without live ConfigMaps (before configRevisions apply was Reload, or its template reads none)"
	}
	key := p.groupKey(podRevision(s.pod), s.ordinal) + ">" + to
	if why, ok := p.reloadShapes[key]; ok {
		return why == "", why
	}
	why := p.shapeDiff(s, to)
	if p.reloadShapes == nil {
		p.reloadShapes = map[string]string{}
	}
	p.reloadShapes[key] = why
	return why == "", why
}

// shapeDiff is what differs between the reload shapes of the pod's
// revision and to at its ordinal, "" when nothing does.
func (p *planner) shapeDiff(s slot, to string) string {
	from := podRevision(s.pod)
	a, b := p.templateAt(from, s.ordinal), p.templateAt(to, s.ordinal)
	if a == nil || b == nil {
		return fmt.Sprintf("revision %s or %s is not one of the set's", from, to)
	}
	sa, sb := configrev.ReloadShape(a, p.recordsOf(from)), configrev.ReloadShape(b, p.recordsOf(to))
	if apiequality.Semantic.DeepEqual(sa, sb) {
		return ""
	}
	return "its template changes beyond the data of ConfigMaps its volumes read: " + shapeChange(sa, sb)
}

// shapeChange names what differs between two templates a reload cannot
// carry; a ConfigMap read through the environment shows as its
// container.
func shapeChange(a, b *corev1.PodTemplateSpec) string {
	var out []string
	if !apiequality.Semantic.DeepEqual(a.ObjectMeta, b.ObjectMeta) {
		out = append(out, "metadata")
	}
	if len(a.Spec.Containers) == len(b.Spec.Containers) {
		out = append(out, differentFields(&a.Spec, &b.Spec)...)
	} else {
		out = append(out, "containers")
	}
	for i, f := range out {
		if strings.HasPrefix(f, "containers[") {
			out[i] = strings.Replace(f, " (other than image and resources)", " (its image, env or another field; a ConfigMap read through the environment or a Secret cannot reload)", 1)
		}
	}
	return strings.Join(out, ", ")
}

// reloadStart writes revision to's data into the live ConfigMaps of the
// pod in s and records it, Pending.
func (p *planner) reloadStart(s slot, to, why string) []Action {
	rec, _ := configrev.ReloadOf(s.pod.Annotations)
	copies := map[string]string{}
	for _, r := range p.recordsOf(to) {
		if r.Kind == configrev.ConfigMap {
			copies[r.Name] = r.Copy
		}
	}
	live := make([]configrev.Live, 0, len(rec.Live))
	for _, l := range rec.Live {
		if c, ok := copies[l.Source]; ok {
			l.Copy = c
			live = append(live, l)
		}
	}
	next := configrev.ReloadRecord{Revision: to, Time: p.stamp(), Pending: true, Live: live}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"uid": s.pod.UID,
		"annotations": map[string]any{v1alpha1.ConfigReloadAnnotation: next.Encode()}}})
	p.touched(s)
	return []Action{{Kind: ReloadPod, Ordinal: s.ordinal, Pod: s.pod, Patch: patch, Config: live, FailEvent: EventFailedUpdate,
		Reason: fmt.Sprintf("reload: %s from %s to revision %s: its live ConfigMaps get the new data, without a restart%s", s.pod.Name, podRevision(s.pod), to, why)}}
}

// reloadDone moves the pod in s to revision to, whose data its live
// ConfigMaps hold and its application has been told of.
func (p *planner) reloadDone(s slot, rec configrev.ReloadRecord, how string) Action {
	rec.Pending = false
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"uid": s.pod.UID,
		"labels":      map[string]any{appsv1.StatefulSetRevisionLabel: rec.Revision, v1alpha1.ReloadHookLabel: nil},
		"annotations": map[string]any{v1alpha1.ConfigReloadAnnotation: rec.Encode(), v1alpha1.ReloadHookLabel: nil}}})
	why := fmt.Sprintf("reload: %s runs revision %s without a restart (%s)", s.pod.Name, rec.Revision, how)
	return Action{Kind: PatchPod, Ordinal: s.ordinal, Pod: s.pod, Patch: patch, EventReason: EventConfigReloaded, EventMessage: why,
		FailEvent: EventFailedUpdate, Reason: why}
}

// reloadPass carries on the reloads under way, before the rolling update
// starts others: each such pod already counts as disrupted, so it goes on
// without the round's gates.
func (p *planner) reloadPass() {
	if !p.reloading() {
		return
	}
	var actions []Action
	for _, s := range p.replicas {
		if !isCreated(s.pod) || isTerminating(s.pod) || p.deleted[s.ordinal] || !p.reloadBusy(s.pod) {
			continue
		}
		actions = append(actions, p.carryReload(s)...)
	}
	p.addStep(StepReload, actions)
}

// StepReload is the step that carries reloads under way.
const StepReload = "reload"

// carryReload takes one reload under way a step further.
func (p *planner) carryReload(s slot) []Action {
	p.touched(s)
	rec, _ := configrev.ReloadOf(s.pod.Annotations)
	if p.paused() {
		p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf(
			"reload: %s's live ConfigMaps hold revision %s; the rollout is held (%s), so its reload waits where it is", s.pod.Name, rec.Revision,
			p.pausedWords(appsv1.StatefulSetStatus{UpdateRevision: p.update})), ""))
		return nil
	}
	target := podRevision(s.pod)
	if p.rollingReplaces(s.ordinal) && p.update != target {
		ok, why := p.reloadable(s, p.update)
		if !ok {
			return p.rollingDelete(s, "in a reload, and revision "+p.update+" cannot be reached by one ("+why+")")
		}
		target = p.update
	}
	if rec.Revision != target {
		return p.reloadStart(s, target, fmt.Sprintf(" (its reload to %s is superseded)", rec.Revision))
	}
	how := "no reload hook: the label moves once the data is written"
	if h := p.ext.Reload.Hook; h != nil {
		if actions, done := p.runHook(s, h); !done {
			return actions
		}
		how = "reload hook done"
	}
	return []Action{p.reloadDone(s, rec, how)}
}

// reloadHook is lifecycle.reload under Reload, nil otherwise.
func (p *planner) reloadHook() *Hook {
	if !p.reloading() {
		return nil
	}
	return p.ext.Reload.Hook
}

// updateAvailable is what the rolling update does to an available
// outdated pod its gates admitted: a reload when the set reloads and the
// pod can, otherwise a recreate, saying why it could not reload.
func (p *planner) updateAvailable(s slot) []Action {
	if !p.reloading() {
		return p.rollingDelete(s, "")
	}
	ok, why := p.reloadable(s, p.update)
	if ok {
		return p.reloadStart(s, p.update, "")
	}
	return p.rollingDelete(s, "recreated, not reloaded: "+why)
}

// reloadHookRequest adds to a reload hook's request the pod's live
// ConfigMaps and their copies; the executor adds each key's hash.
func reloadHookRequest(pod *corev1.Pod, req *v1alpha1.HookRequest) {
	rec, ok := configrev.ReloadOf(pod.Annotations)
	if !ok {
		return
	}
	req.Revision, req.UpdateRevision = podRevision(pod), rec.Revision
	for _, l := range rec.Live {
		req.Config = append(req.Config, v1alpha1.HookConfig{ConfigMap: l.Source, Live: l.Name, Copy: l.Copy})
	}
}
