package osts_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// manifests are StatefulSet specs as users write them.
var manifests = []string{"../../examples/web.yaml", "../defaults/testdata/db.yaml", "../defaults/testdata/cache.yaml"}

// withServiceAccount is a spec that names a service account, which the API
// server's round trip also copies into the deprecated serviceAccount.
const withServiceAccount = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: sa}
spec:
  selector: {matchLabels: {app: sa}}
  serviceName: sa
  template:
    metadata: {labels: {app: sa}}
    spec:
      serviceAccountName: robot
      containers: [{name: app, image: "example.com/app@sha256:` + digest + `"}]
`

const digest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestTheSameManifestGivesTheSameRevisionInBothKinds: the extended kind's
// view of a manifest hashes to the revision the API server's apps/v1 set of
// the same manifest has, so a set changes kind without a pod restarting.
func TestTheSameManifestGivesTheSameRevisionInBothKinds(t *testing.T) {
	docs := map[string][]byte{"serviceAccountName": []byte(withServiceAccount)}
	for _, path := range manifests {
		docs[path] = statefulSetDocument(t, path)
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			stored := storedByAPIServer(t, doc)
			ext := asExtended(t, doc)
			want, err := revision.New(stored, 1, ptr.To[int32](0))
			if err != nil {
				t.Fatal(err)
			}
			got, err := revision.New(osts.View(ext), 1, ptr.To[int32](0))
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != want.Name {
				t.Errorf("revision %s, the apps/v1 set's %s; data (-apps/v1 +extended):\n%s", got.Name, want.Name, cmp.Diff(string(want.Data.Raw), string(got.Data.Raw)))
			}
		})
	}
}

func TestExtendedInputs(t *testing.T) {
	ext := asExtended(t, []byte(withServiceAccount))
	e := osts.Extended(ext)
	if e.Owner != v1alpha1.Kind || !e.SelfHealing || e.OnFailure != v1alpha1.FailureReport || e.ProgressDeadline.Seconds() != osts.DefaultProgressDeadline || e.MaxUnavailable != 1 {
		t.Errorf("defaults %+v", e)
	}
	ext.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{Paused: true, SelfHealing: v1alpha1.SelfHealingDisabled, OnFailure: v1alpha1.FailureRollback}
	ext.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intOrString("50%"))
	ext.Spec.Replicas = ptr.To[int32](5)
	e = osts.Extended(ext)
	if !e.Paused || e.SelfHealing || e.OnFailure != v1alpha1.FailureRollback || e.MaxUnavailable != 2 {
		t.Errorf("from the spec %+v", e)
	}
	v := osts.View(ext)
	if v.Spec.UpdateStrategy.RollingUpdate == nil || v.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable == nil {
		t.Errorf("the view's rolling update lost maxUnavailable: %+v", v.Spec.UpdateStrategy)
	}
}

func TestReservedOrdinalsReachThePlanner(t *testing.T) {
	ext := asExtended(t, []byte(withServiceAccount))
	if e := osts.Extended(ext); e.Reserved != nil {
		t.Errorf("a set without reserveOrdinals reserves %v", e.Reserved)
	}
	ext.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromInt32(1), intstr.FromString("5-7"), intstr.FromString("9-8")}
	want := []planner.OrdinalRange{{Low: 1, High: 1}, {Low: 5, High: 7}}
	if diff := cmp.Diff(want, osts.Extended(ext).Reserved); diff != "" {
		t.Errorf("reserved (-want +got), the bad entry left out:\n%s", diff)
	}
}

func TestPriorityRulesReachThePlanner(t *testing.T) {
	ext := asExtended(t, []byte(withServiceAccount))
	if e := osts.Extended(ext); e.Priority != nil {
		t.Errorf("a set without rules has %v", e.Priority)
	}
	primary := metav1.LabelSelector{MatchLabels: map[string]string{"role": "primary"}}
	ext.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{
		Priority: []v1alpha1.UpdatePriorityRule{{Weight: -100, Selector: primary}},
	}
	want := []planner.PriorityRule{{Weight: -100, Selector: &primary}}
	if diff := cmp.Diff(want, osts.Extended(ext).Priority); diff != "" {
		t.Errorf("priority (-want +got):\n%s", diff)
	}
}

func TestInPlaceSettingsReachThePlanner(t *testing.T) {
	ext := asExtended(t, []byte(withServiceAccount))
	ext.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.OnDeleteStatefulSetStrategyType}
	if e := osts.Extended(ext); e.PodUpdate != "" || e.ResizeTimeout != osts.DefaultResizeTimeout*time.Second {
		t.Errorf("without a rolling update: policy %q, resize timeout %s (want the default, which a pod changed in place earlier still needs)", e.PodUpdate, e.ResizeTimeout)
	}
	ext.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &v1alpha1.RollingUpdateStatefulSetStrategy{PodUpdatePolicy: v1alpha1.PodUpdateInPlaceOnly,
			InPlace: &v1alpha1.InPlaceUpdate{GracePeriodSeconds: 5, ResizeTimeoutSeconds: 30}}}
	e := osts.Extended(ext)
	if e.PodUpdate != v1alpha1.PodUpdateInPlaceOnly || e.InPlaceGrace != 5*time.Second || e.ResizeTimeout != 30*time.Second {
		t.Errorf("from the spec: policy %q, grace %s, resize timeout %s", e.PodUpdate, e.InPlaceGrace, e.ResizeTimeout)
	}
}

func TestLifecycleHooksReachThePlanner(t *testing.T) {
	ext := asExtended(t, []byte(withServiceAccount))
	if e := osts.Extended(ext); e.PreUpdate != nil || e.PreDelete != nil {
		t.Errorf("without spec.lifecycle: hooks %+v, %+v", e.PreUpdate, e.PreDelete)
	}
	ext.Spec.Lifecycle = &v1alpha1.Lifecycle{
		PreUpdate: &v1alpha1.LifecycleHook{HTTP: &v1alpha1.HTTPHook{URL: "http://db-admin:8080/switchover"}, TimeoutSeconds: 60, FailurePolicy: v1alpha1.HookProceed},
		PreDelete: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}},
	}
	e := osts.Extended(ext)
	wantUpdate := &planner.Hook{Name: "preUpdate", Label: v1alpha1.PreUpdateHookLabel, HTTP: &planner.HookEndpoint{URL: "http://db-admin:8080/switchover"}, Timeout: time.Minute, Proceed: true}
	wantDelete := &planner.Hook{Name: "preDelete", Label: v1alpha1.PreDeleteHookLabel, Timeout: osts.DefaultHookTimeout * time.Second}
	if diff := cmp.Diff(wantUpdate, e.PreUpdate); diff != "" {
		t.Errorf("preUpdate (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantDelete, e.PreDelete); diff != "" {
		t.Errorf("preDelete (-want +got):\n%s", diff)
	}

	// A service handler is in the set's namespace, port 80 and path "/"
	// by default, port 443 with a CA bundle.
	ext.Namespace = "shop"
	ext.Spec.Lifecycle.PreUpdate = &v1alpha1.LifecycleHook{Service: &v1alpha1.ServiceHook{Name: "db-admin"}}
	ext.Spec.Lifecycle.PreDelete = &v1alpha1.LifecycleHook{Service: &v1alpha1.ServiceHook{Name: "db-admin", Path: "/leave", CABundle: []byte("PEM")}}
	e = osts.Extended(ext)
	for _, tc := range []struct {
		got  *planner.Hook
		want planner.HookEndpoint
		url  string
	}{
		{e.PreUpdate, planner.HookEndpoint{Service: &planner.HookService{Namespace: "shop", Name: "db-admin", Port: 80, Path: "/"}}, "http://db-admin.shop.svc:80/"},
		{e.PreDelete, planner.HookEndpoint{Service: &planner.HookService{Namespace: "shop", Name: "db-admin", Port: 443, Path: "/leave"}, CABundle: []byte("PEM")}, "https://db-admin.shop.svc:443/leave"},
	} {
		if diff := cmp.Diff(&tc.want, tc.got.HTTP); diff != "" {
			t.Errorf("%s service hook (-want +got):\n%s", tc.got.Name, diff)
		}
		if s := tc.got.HTTP.String(); s != tc.url {
			t.Errorf("%s service hook shown as %q, want %q", tc.got.Name, s, tc.url)
		}
	}
}

func asExtended(t *testing.T, doc []byte) *v1alpha1.StatefulSet {
	t.Helper()
	data, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	ext := &v1alpha1.StatefulSet{}
	if err := json.Unmarshal(data, ext); err != nil {
		t.Fatal(err)
	}
	return ext
}

func storedByAPIServer(t *testing.T, doc []byte) *appsv1.StatefulSet {
	t.Helper()
	data, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	internal, _, err := legacyscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := runtime.Encode(legacyscheme.Codecs.LegacyCodec(appsv1.SchemeGroupVersion), internal)
	if err != nil {
		t.Fatal(err)
	}
	stored := &appsv1.StatefulSet{}
	if err := json.Unmarshal(encoded, stored); err != nil {
		t.Fatal(err)
	}
	return stored
}

func statefulSetDocument(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		if strings.Contains(doc, "\nkind: StatefulSet\n") {
			return []byte(doc)
		}
	}
	t.Fatalf("%s has no StatefulSet", path)
	return nil
}

func intOrString(s string) intstr.IntOrString { return intstr.FromString(s) }

func TestRolesAndTheSwitchoverReachThePlanner(t *testing.T) {
	ext := asExtended(t, []byte(withServiceAccount))
	if e := osts.Extended(ext); e.Roles != nil || e.Switchover != nil {
		t.Errorf("without roles: %+v, switchover %+v", e.Roles, e.Switchover)
	}
	ext.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{
		{Name: "leader", Quorum: true, Exclusive: true},
		{Name: "primary", Exclusive: true, UpdateOrder: ptr.To[int32](3)},
		{Name: "follower", Quorum: true},
		{Name: "learner", UpdateOrder: ptr.To[int32](7)},
	}}
	ext.Spec.Lifecycle = &v1alpha1.Lifecycle{Switchover: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}, TimeoutSeconds: 30}}
	e := osts.Extended(ext)
	want := &planner.RoleSpec{LabelKey: "role", Roles: []planner.Role{
		{Name: "leader", Quorum: true, Exclusive: true, Order: planner.LastRoleOrder},
		{Name: "primary", Exclusive: true, Order: 3},
		{Name: "follower", Quorum: true},
		{Name: "learner", Order: 7},
	}}
	if diff := cmp.Diff(want, e.Roles); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	wantHook := &planner.Hook{Name: "switchover", Label: v1alpha1.SwitchoverHookLabel, Timeout: 30 * time.Second}
	if diff := cmp.Diff(wantHook, e.Switchover); diff != "" {
		t.Errorf("switchover (-want +got):\n%s", diff)
	}
}

// A role probe whose defaults the schema did not set (a client that
// skipped it) gets the same ones; no probe is nil.
func TestARoleProbeResolvesItsDefaults(t *testing.T) {
	got := osts.RoleProbe(&v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: 8080}})
	want := &planner.RoleProbe{Port: 8080, Path: "/role", Period: 5 * time.Second, Timeout: time.Second, FailureThreshold: 3}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolved probe (-want +got):\n%s", diff)
	}
	if osts.RoleProbe(nil) != nil {
		t.Error("no probe resolves to one")
	}
}

// A hold goes from status to the planner and back unchanged, and the
// release annotation reaches the planner.
func TestAHoldReachesThePlannerAndComesBack(t *testing.T) {
	ext := asExtended(t, []byte(withServiceAccount))
	at := metav1.NewTime(time.Date(2026, 11, 28, 11, 0, 0, 0, time.UTC))
	ext.Status.Hold = &v1alpha1.RolloutHold{ID: "web-b@2026-11-28T11:00:00.5Z", Action: v1alpha1.HoldRolledBack,
		FailedRevision: "web-b", Revision: "web-a", Reason: "no progress", Time: at}
	ext.Annotations = map[string]string{v1alpha1.ReleaseHoldAnnotation: "web-b@2026-11-28T11:00:00.4Z"}
	e := osts.Extended(ext)
	want := &planner.Hold{ID: "web-b@2026-11-28T11:00:00.5Z", Action: v1alpha1.HoldRolledBack, FailedRevision: "web-b", Revision: "web-a",
		Reason: "no progress", Time: at.Time}
	if diff := cmp.Diff(want, e.Last.Hold); diff != "" {
		t.Errorf("hold in (-want +got):\n%s", diff)
	}
	if e.ReleaseHold != "web-b@2026-11-28T11:00:00.4Z" {
		t.Errorf("release %q", e.ReleaseHold)
	}
	out := osts.Status(ext, appsv1.StatefulSetStatus{}, &planner.ExtendedPlan{Status: planner.ExtendedStatus{Hold: want}})
	if diff := cmp.Diff(ext.Status.Hold, out.Hold); diff != "" {
		t.Errorf("hold out (-in +out):\n%s", diff)
	}
}

// Every int-or-percent value is scaled once, when the spec is read; one
// that cannot be read is reported by every plan with what the plan does
// instead, never counted as 1 without a word.
func TestAnUnreadableMaxUnavailableIsReportedByThePlan(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		set         func(*v1alpha1.StatefulSet)
	}{{
		name: "scaleStrategy.maxUnavailable", field: "spec.scaleStrategy.maxUnavailable",
		set: func(s *v1alpha1.StatefulSet) {
			s.Spec.ScaleStrategy = &v1alpha1.ScaleStrategy{MaxUnavailable: ptr.To(intOrString("lots"))}
		},
	}, {
		name: "rollingUpdate.maxUnavailable", field: "spec.updateStrategy.rollingUpdate.maxUnavailable",
		set: func(s *v1alpha1.StatefulSet) {
			s.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{MaxUnavailable: ptr.To(intOrString("lots"))}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ext := asExtended(t, []byte(withServiceAccount))
			tc.set(ext)
			view := osts.View(ext)
			rev, err := revision.NewWith(view, 1, nil, osts.RevisionOptions(ext))
			if err != nil {
				t.Fatal(err)
			}
			plan := planner.Compute(planner.Input{Set: view, Extended: osts.Extended(ext), Current: rev, Update: rev, Now: time.Unix(0, 0)})
			var got []string
			for _, w := range plan.Warnings {
				if w.Reason == planner.ReasonInvalidMaxUnavailable {
					got = append(got, w.Message)
				}
			}
			if len(got) != 1 || !strings.Contains(got[0], tc.field) || !strings.Contains(got[0], `"lots"`) {
				t.Errorf("warnings %q, want one naming %s and its value", got, tc.field)
			}
		})
	}
}
