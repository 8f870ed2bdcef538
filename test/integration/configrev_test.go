package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// configGate is the readiness gate of the sets below: the test plays an
// application that is Ready only when the config it reads says valid.
const configGate = "config.example.com/valid"

// configuredSet is a 3-pod extended set whose pods mount ConfigMap app
// and whose revisions hold its data, with onFailure Rollback.
func configuredSet(t *testing.T, ns string) *v1alpha1.StatefulSet {
	apps := webSet(ns, replicas(3))
	apps.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}}}}}
	apps.Spec.Template.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: configGate}}
	ext := extended(t, apps)
	ext.Spec.ConfigRevisions = &v1alpha1.ConfigRevisions{}
	ext.Spec.ProgressDeadlineSeconds = ptr(int32(8))
	ext.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{OnFailure: v1alpha1.FailureRollback}
	return ext
}

func writeConfigMap(t *testing.T, ns string, data map[string]string) {
	t.Helper()
	cms := client.CoreV1().ConfigMaps(ns)
	cur, err := cms.Get(context.Background(), "app", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = cms.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns}, Data: data}, metav1.CreateOptions{})
	} else if err == nil {
		cur.Data = data
		_, err = cms.Update(context.Background(), cur, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatalf("writing ConfigMap app: %v", err)
	}
}

// mounted is the ConfigMap a pod's config volume names.
func mounted(p *corev1.Pod) string {
	for _, v := range p.Spec.Volumes {
		if v.Name == "config" && v.ConfigMap != nil {
			return v.ConfigMap.Name
		}
	}
	return ""
}

// playConfiguredApp sets each running pod's readiness gate from the data
// of the ConfigMap it mounts, as an application that checks its config
// would: True when it says valid, False otherwise.
func playConfiguredApp(t *testing.T, ns string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	judge := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok || p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			return
		}
		want := corev1.ConditionFalse
		if cm, err := client.CoreV1().ConfigMaps(ns).Get(ctx, mounted(p), metav1.GetOptions{}); err == nil && cm.Data["valid"] == "true" {
			want = corev1.ConditionTrue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == configGate && c.Status == want {
				return
			}
		}
		patch := fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":%q,"lastTransitionTime":%q}]}}`, configGate, want, time.Now().UTC().Format(time.RFC3339))
		_, _ = client.CoreV1().Pods(ns).Patch(ctx, p.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: judge, UpdateFunc: func(_, cur any) { judge(cur) }}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
}

// podsRead checks that every pod mounts a copy owned by the controller,
// made for the set, holding value v.
func podsRead(t *testing.T, ns, v string) {
	t.Helper()
	for _, p := range listPods(t, ns) {
		cm, err := client.CoreV1().ConfigMaps(ns).Get(context.Background(), mounted(&p), metav1.GetOptions{})
		if err != nil {
			t.Errorf("pod %s mounts %q: %v", p.Name, mounted(&p), err)
			continue
		}
		if cm.Name == "app" || !configrev.IsCopyFor(cm.Labels, setName) || cm.Immutable == nil || !*cm.Immutable || cm.Data["v"] != v {
			t.Errorf("pod %s mounts %s (labels %v, immutable %v) with v=%q, want an immutable copy with v=%q", p.Name, cm.Name, cm.Labels, cm.Immutable, cm.Data["v"], v)
		}
		if len(cm.OwnerReferences) == 0 || cm.OwnerReferences[0].Kind != "ControllerRevision" {
			t.Errorf("copy %s is owned by %v, want its revisions", cm.Name, cm.OwnerReferences)
		}
	}
}

// A ConfigMap edit makes a new revision that rolls out like a template
// change (one pod at a time, highest ordinal first), each pod reading an
// immutable copy of its revision's data; undo brings the old data back,
// and the user's ConfigMap is never written.
func TestAConfigMapEditRollsOutAndUndoBringsTheOldDataBack(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	playConfiguredApp(t, ns)
	rec := recordPods(t, ns)
	writeConfigMap(t, ns, map[string]string{"valid": "true", "v": "1"})
	createExtended(t, configuredSet(t, ns))
	first := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	podsRead(t, ns, "1")
	if c := condition(first, v1alpha1.ConditionConfigResolved); c.Status != metav1.ConditionTrue {
		t.Errorf("ConfigResolved %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	planSees(t, ns, first.Status.UpdateRevision)

	mark := rec.Mark()
	writeConfigMap(t, ns, map[string]string{"valid": "true", "v": "2"})
	second := waitExtended(t, ns, 2*time.Minute, "the config rolled out", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == first.Status.UpdateRevision {
			return fmt.Errorf("no new revision yet")
		}
		return extendedSettled(s)
	})
	podsRead(t, ns, "2")
	planSees(t, ns, second.Status.UpdateRevision)
	var order []string
	for _, e := range rec.Since(mark, evDeleted, evAdded) {
		order = append(order, e.Type+" "+e.Name)
	}
	want := []string{"DELETED web-2", "ADDED web-2", "DELETED web-1", "ADDED web-1", "DELETED web-0", "ADDED web-0"}
	if !slices.Equal(order, want) {
		t.Errorf("the config edit moved pods %v, want one at a time, highest first: %v", order, want)
	}

	target, err := setops.LoadExtended(context.Background(), client, extendedClient(t), ns, setName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := target.Undo(context.Background(), 0); err != nil {
		t.Fatalf("undo: %v", err)
	}
	waitExtended(t, ns, 2*time.Minute, "the undo rolled out", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision != first.Status.UpdateRevision {
			return fmt.Errorf("update revision %s, want the first, %s", s.Status.UpdateRevision, first.Status.UpdateRevision)
		}
		return extendedSettled(s)
	})
	podsRead(t, ns, "1")
	cm, err := client.CoreV1().ConfigMaps(ns).Get(context.Background(), "app", metav1.GetOptions{})
	if err != nil || cm.Data["v"] != "2" || cm.Immutable != nil || len(cm.OwnerReferences) > 0 {
		t.Errorf("the user's ConfigMap was written: %+v (%v)", cm, err)
	}
	t.Logf("revisions: first %s, second %s", first.Status.UpdateRevision, second.Status.UpdateRevision)
}

// A config whose pods never get Ready is rolled back by onFailure:
// Rollback to the revision that ran, with its data, while the user's
// ConfigMap keeps the broken data.
func TestABrokenConfigRollsItselfBack(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	playConfiguredApp(t, ns)
	writeConfigMap(t, ns, map[string]string{"valid": "true", "v": "1"})
	createExtended(t, configuredSet(t, ns))
	good := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled).Status.UpdateRevision
	writeConfigMap(t, ns, map[string]string{"valid": "false", "v": "2"})
	waitExtended(t, ns, 2*time.Minute, "the rollback to "+good, func(s *v1alpha1.StatefulSet) error {
		if s.Status.Rollback == nil || s.Status.Rollback.To != good {
			return fmt.Errorf("no rollback to %s recorded", good)
		}
		if err := extendedSettled(s); err != nil {
			return err
		}
		if s.Status.UpdateRevision != good {
			return fmt.Errorf("update revision %s, want %s", s.Status.UpdateRevision, good)
		}
		return nil
	})
	podsRead(t, ns, "1")
}

// A ConfigMap the template reads that does not exist holds the set with
// a reason in status, and no pod is made; once it exists the set starts.
func TestAMissingConfigMapHoldsTheSetWithAReason(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	playConfiguredApp(t, ns)
	createExtended(t, configuredSet(t, ns))
	waitExtended(t, ns, time.Minute, "the hold in status", func(s *v1alpha1.StatefulSet) error {
		c := condition(s, v1alpha1.ConditionConfigResolved)
		if c.Status != metav1.ConditionFalse || c.Reason != "ConfigMissing" {
			return fmt.Errorf("ConfigResolved %s/%s: %s", c.Status, c.Reason, c.Message)
		}
		return nil
	})
	if pods := listPods(t, ns); len(pods) > 0 {
		t.Errorf("pods made without their config: %s", describePods(pods))
	}
	writeConfigMap(t, ns, map[string]string{"valid": "true", "v": "1"})
	waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	podsRead(t, ns, "1")
}

// planSees checks that `ordinal rollout plan` finds the set's update
// revision, with nothing to do, as the controller does: it reads the
// objects' data as the controller does, and makes no new revision of
// the template as written.
func planSees(t *testing.T, ns, update string) {
	t.Helper()
	target, err := setops.LoadExtended(context.Background(), client, extendedClient(t), ns, setName)
	if err != nil {
		t.Fatal(err)
	}
	o, err := target.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	report, err := setops.PlanReport(o, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if report.Update.Name != update || report.RevisionWrite != "none" || len(report.Steps) > 0 {
		t.Errorf("rollout plan: update revision %s (write %s), %d steps; want %s, none, no step", report.Update.Name, report.RevisionWrite, len(report.Steps), update)
	}
}
