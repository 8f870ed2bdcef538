package integration

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/migrate"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// migrated is what a migration must leave as it was: every pod, claim and
// revision of the namespace by name, with its UID.
type migrated map[string]types.UID

func snapshot(t *testing.T, ns string) migrated {
	t.Helper()
	ctx, out := context.Background(), migrated{}
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		out["pod/"+p.Name] = p.UID
	}
	claims, err := client.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range claims.Items {
		out["claim/"+c.Name] = c.UID
	}
	revs, err := client.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range revs.Items {
		out["revision/"+r.Name] = r.UID
	}
	return out
}

// untouched checks that every pod, claim and revision of ns is the one
// snapshot saw, and that the pod watch saw no pod added, terminating or
// deleted since mark.
func untouched(t *testing.T, ns string, before migrated, rec *recorder, mark int) {
	t.Helper()
	if after := snapshot(t, ns); !maps.Equal(after, before) {
		t.Errorf("pods, claims and revisions now:\n%v\nbefore:\n%v", after, before)
	}
	if moved := rec.Since(mark, evAdded, evTerminating, evDeleted); len(moved) > 0 {
		t.Errorf("pods moved: %v", moved)
	}
}

// claimsOwnedBy waits until every claim of ns has an owner reference to
// uid, as whenDeleted: Delete asks of the set's controller.
func claimsOwnedBy(t *testing.T, ns string, uid types.UID) {
	t.Helper()
	waitFor(t, time.Minute, "the claims to be owned by "+string(uid), func() (bool, error) {
		claims, err := client.CoreV1().PersistentVolumeClaims(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range claims.Items {
			if !slices.ContainsFunc(c.OwnerReferences, func(r metav1.OwnerReference) bool { return r.UID == uid }) {
				return false, fmt.Errorf("claim %s is owned by %+v", c.Name, c.OwnerReferences)
			}
		}
		return len(claims.Items) == 3, fmt.Errorf("%d claims", len(claims.Items))
	})
}

// runMigration migrates the set ref names to kind to and fails the test
// if it does not complete.
func runMigration(t *testing.T, ns string, ref setops.Ref, to setops.Kind) string {
	t.Helper()
	return runMigrationForced(t, ns, ref, to, false)
}

func runMigrationForced(t *testing.T, ns string, ref setops.Ref, to setops.Kind, force bool) string {
	t.Helper()
	c := migrate.Clients{Kube: client, Extended: extendedClient(t)}
	plan, err := migrate.Prepare(context.Background(), c, ns, ref, to, force)
	if err != nil {
		t.Fatalf("preparing the migration of %v: %v", ref, err)
	}
	var out strings.Builder
	err = plan.Run(context.Background(), c, migrate.RunOptions{BackupDir: t.TempDir(), Timeout: time.Minute, Out: &out, Now: time.Now})
	t.Logf("migrating %s to %s:\n%s", plan.FromRef(), plan.ToRef(), out.String())
	if err != nil {
		t.Fatalf("migrating %v: %v", ref, err)
	}
	return out.String()
}

// ownedBy checks that every pod and revision of ns is controlled by uid.
func ownedBy(t *testing.T, ns string, uid types.UID) {
	t.Helper()
	for _, p := range listPods(t, ns) {
		if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != uid {
			t.Errorf("pod %s is controlled by %+v, want UID %s", p.Name, ref, uid)
		}
	}
	revs, err := client.AppsV1().ControllerRevisions(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range revs.Items {
		if ref := metav1.GetControllerOf(&r); ref == nil || ref.UID != uid {
			t.Errorf("revision %s is controlled by %+v, want UID %s", r.Name, ref, uid)
		}
	}
}

// A live 3-pod set with claims (deleted with the set) and two revisions
// goes to the extended kind and back under Ordinal: every pod, claim and
// revision keeps its UID, the pod watch sees no pod added, terminating or
// deleted, both sets report the same revisions, and the claims end up
// owned by the set again.
func TestMigrateRoundTripsALiveSetWithoutRestartingAPod(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createSet(t, webSet(ns, replicas(3), withClaims(), retention(appsv1.DeletePersistentVolumeClaimRetentionPolicyType, appsv1.RetainPersistentVolumeClaimRetentionPolicyType)))
	waitSet(t, ns, time.Minute, "3 ready replicas", settled)
	updateSet(t, ns, setImage(imageNew))
	before := waitSet(t, ns, time.Minute, "the update to "+imageNew, settled)
	objects, mark := snapshot(t, ns), rec.Mark()

	out := runMigration(t, ns, setops.Ref{Kind: setops.AppsV1, Name: setName}, setops.AnyKind)
	ext := waitExtended(t, ns, time.Minute, "the extended set to settle", extendedSettled)
	if ext.Status.UpdateRevision != before.Status.UpdateRevision || ext.Status.CurrentRevision != before.Status.CurrentRevision {
		t.Errorf("extended set at current %s, update %s; the apps/v1 set was at %s, %s",
			ext.Status.CurrentRevision, ext.Status.UpdateRevision, before.Status.CurrentRevision, before.Status.UpdateRevision)
	}
	if !strings.Contains(out, "no pod was restarted") {
		t.Errorf("the migration did not report its result: %q", out)
	}
	ownedBy(t, ns, ext.UID)

	claimsOwnedBy(t, ns, ext.UID)

	runMigration(t, ns, setops.Ref{Kind: setops.ExtendedKind, Name: setName}, setops.AppsV1)
	back := waitSet(t, ns, time.Minute, "the apps/v1 set to settle", settled)
	claimsOwnedBy(t, ns, back.UID)
	if back.Status.UpdateRevision != before.Status.UpdateRevision || *back.Status.CollisionCount != *before.Status.CollisionCount {
		t.Errorf("apps/v1 set back at update %s, collisions %d; was %s, %d", back.Status.UpdateRevision,
			*back.Status.CollisionCount, before.Status.UpdateRevision, *before.Status.CollisionCount)
	}
	ownedBy(t, ns, back.UID)
	untouched(t, ns, objects, rec, mark)
}

// With kube-controller-manager's controller managing apps/v1 and Ordinal
// only the extended kind (--manage-apps-v1=false), a live set moves to the
// extended kind and back with no pod restarted: each controller adopts
// the other's pods and revisions.
func TestMigrateRoundTripsBetweenTheBuiltinControllerAndOrdinal(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startBuiltin(t, ns)
	startOrdinalWith(t, ns, controller.Options{SkipAppsV1: true})
	rec := recordPods(t, ns)
	createSet(t, webSet(ns, replicas(3), withClaims()))
	before := waitSet(t, ns, time.Minute, "3 ready replicas", settled)
	objects, mark := snapshot(t, ns), rec.Mark()

	runMigration(t, ns, setops.Ref{Kind: setops.AppsV1, Name: setName}, setops.ExtendedKind)
	ext := waitExtended(t, ns, time.Minute, "the extended set to settle", extendedSettled)
	if ext.Status.UpdateRevision != before.Status.UpdateRevision {
		t.Errorf("extended set at update revision %s, the apps/v1 set was at %s", ext.Status.UpdateRevision, before.Status.UpdateRevision)
	}
	ownedBy(t, ns, ext.UID)

	runMigration(t, ns, setops.Ref{Kind: setops.ExtendedKind, Name: setName}, setops.AppsV1)
	back := waitSet(t, ns, time.Minute, "the built-in controller to settle the apps/v1 set", settled)
	if back.Status.UpdateRevision != before.Status.UpdateRevision {
		t.Errorf("apps/v1 set back at update revision %s, was %s", back.Status.UpdateRevision, before.Status.UpdateRevision)
	}
	ownedBy(t, ns, back.UID)
	untouched(t, ns, objects, rec, mark)
}

// Migrating back to apps/v1 is refused, with each reason, while the
// extended set has settings apps/v1 would drop and its controller has not
// seen it; --force turns the refusal into a plan that names what it
// overrides, and preparing changes nothing.
func TestMigrateRefusesWithTheReasonUnlessForced(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	createExtended(t, asExtended(t, webSet(ns, replicas(2)), func(s *v1alpha1.StatefulSet) {
		s.Spec.ProgressDeadlineSeconds = ptr(int32(30))
		s.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{OnFailure: v1alpha1.FailureRollback}
	}))
	c := migrate.Clients{Kube: client, Extended: extendedClient(t)}
	ref := setops.Ref{Kind: setops.ExtendedKind, Name: setName}
	_, err := migrate.Prepare(context.Background(), c, ns, ref, setops.AppsV1, false)
	var refused *migrate.Refused
	if !errors.As(err, &refused) {
		t.Fatalf("Prepare returned %v, want a refusal", err)
	}
	want := []string{
		"the controller has not observed generation 1 yet (status is at 0)",
		"spec.progressDeadlineSeconds is 30 (default 600; apps/v1 has no progress deadline)",
		"spec.updateStrategy.rollingUpdate.onFailure is Rollback (default Report; apps/v1 neither pauses nor rolls back a failed rollout)",
	}
	if !slices.Equal(refused.Reasons, want) {
		t.Errorf("reasons %q, want %q", refused.Reasons, want)
	}
	plan, err := migrate.Prepare(context.Background(), c, ns, ref, setops.AppsV1, true)
	if err != nil {
		t.Fatalf("Prepare with force: %v", err)
	}
	var out strings.Builder
	plan.Describe(&out, "/backups")
	for _, line := range []string{
		"would migrate statefulset.apps.ordinal.dev/web to statefulset.apps/web (the API server accepts the new set in a dry run):",
		"  --force overrides: spec.progressDeadlineSeconds is 30 (default 600; apps/v1 has no progress deadline)",
		"  apps/v1 does not keep: spec.updateStrategy.rollingUpdate.respectDisruptionBudgets is true (default true; apps/v1 deletes the pods of its rolling update without asking PodDisruptionBudgets)",
		"  2. delete statefulset.apps.ordinal.dev/web with propagationPolicy=Orphan; pods (none) and revisions (none) keep running",
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("dry run lacks %q:\n%s", line, out.String())
		}
	}
	if _, err := client.AppsV1().StatefulSets(ns).Get(context.Background(), setName, metav1.GetOptions{}); err == nil {
		t.Error("the dry run created an apps/v1 set")
	}
	getExtended(t, ns)
}

// A set with ordinal 1 reserved runs web-0, web-2 and web-3. apps/v1
// would create web-1 and delete web-3, without its preDelete hook and,
// under whenScaled Delete, with its claim: the migration is refused even
// with --force, names both and the hook setting, and changes nothing.
func TestMigrateToAppsV1RefusesToMovePodsEvenWhenForced(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3), withClaims(), retention(appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType)), func(s *v1alpha1.StatefulSet) {
		s.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromInt32(1)}
		s.Spec.Lifecycle = &v1alpha1.Lifecycle{PreDelete: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}}}
	}))
	waitExtended(t, ns, time.Minute, "web-0, web-2 and web-3", podsAre(t, ns, "web-0", "web-2", "web-3"))
	rec := recordPods(t, ns)
	before, mark := snapshot(t, ns), rec.Mark()
	c := migrate.Clients{Kube: client, Extended: extendedClient(t)}
	ref := setops.Ref{Kind: setops.ExtendedKind, Name: setName}
	for _, force := range []bool{false, true} {
		_, err := migrate.Prepare(context.Background(), c, ns, ref, setops.AppsV1, force)
		var unsafe *migrate.Unsafe
		if !errors.As(err, &unsafe) {
			t.Fatalf("force %v: Prepare returned %v, want a refusal --force cannot override", force, err)
		}
		want := []string{
			"spec.reserveOrdinals reserves web-1, which apps/v1 would create (its pods are ordinals 0 to 2)",
			"pod web-3 is outside apps/v1's ordinals 0 to 2: apps/v1 would delete it and, under whenScaled Delete, its claims without running any hook",
		}
		if len(unsafe.Reasons) != len(want) {
			t.Fatalf("force %v: reasons %q, want %d", force, unsafe.Reasons, len(want))
		}
		for i, w := range want {
			if !strings.HasPrefix(unsafe.Reasons[i], w) {
				t.Errorf("force %v: reason %q, want it to start %q", force, unsafe.Reasons[i], w)
			}
		}
		for _, w := range []string{"spec.reserveOrdinals is [1]", "spec.lifecycle is [preDelete]"} {
			if !slices.ContainsFunc(unsafe.Overridable, func(r string) bool { return strings.HasPrefix(r, w) }) {
				t.Errorf("force %v: the refusals --force overrides, %q, do not name %q", force, unsafe.Overridable, w)
			}
		}
	}
	if _, err := client.AppsV1().StatefulSets(ns).Get(context.Background(), setName, metav1.GetOptions{}); err == nil {
		t.Error("an apps/v1 set was created")
	}
	getExtended(t, ns)
	untouched(t, ns, before, rec, mark)
}

// An OnDelete rollout half done (the template changed, no pod deleted) is
// refused with both reasons; forced, the migration carries the old
// current revision over, so the extended set still reports the rollout as
// in progress, and no pod moves.
func TestMigrateMidRolloutIsRefusedAndForcedKeepsTheRolloutState(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createSet(t, webSet(ns, replicas(2), onDelete()))
	waitSet(t, ns, time.Minute, "2 ready replicas", settled)
	updateSet(t, ns, setImage(imageNew))
	mid := waitSet(t, ns, time.Minute, "a new update revision", func(s *appsv1.StatefulSet) error {
		if s.Status.ObservedGeneration < s.Generation || s.Status.CurrentRevision == s.Status.UpdateRevision {
			return fmt.Errorf("no rollout in progress yet")
		}
		return nil
	})
	cur, upd := mid.Status.CurrentRevision, mid.Status.UpdateRevision
	objects, mark := snapshot(t, ns), rec.Mark()
	c := migrate.Clients{Kube: client, Extended: extendedClient(t)}
	ref := setops.Ref{Kind: setops.AnyKind, Name: setName}
	_, err := migrate.Prepare(context.Background(), c, ns, ref, setops.AnyKind, false)
	var refused *migrate.Refused
	want := []string{
		"a rollout is in progress: currentRevision " + cur + ", updateRevision " + upd,
		"not all pods are updated: 0 of 2 at update revision " + upd,
	}
	if !errors.As(err, &refused) || !slices.Equal(refused.Reasons, want) {
		t.Fatalf("Prepare returned %v, want a refusal with reasons %q", err, want)
	}
	runMigrationForced(t, ns, ref, setops.AnyKind, true)
	ext := waitExtended(t, ns, time.Minute, "the extended set's status", func(s *v1alpha1.StatefulSet) error {
		if s.Status.ObservedGeneration < s.Generation || s.Status.ReadyReplicas != 2 {
			return fmt.Errorf("not observed yet")
		}
		return nil
	})
	if ext.Status.CurrentRevision != cur || ext.Status.UpdateRevision != upd || ext.Status.UpdatedReplicas != 0 {
		t.Errorf("extended set at current %s, update %s, %d updated; want %s, %s, 0",
			ext.Status.CurrentRevision, ext.Status.UpdateRevision, ext.Status.UpdatedReplicas, cur, upd)
	}
	untouched(t, ns, objects, rec, mark)
}

// With no controller of the extended kind running, the migration stops
// after creating the new set and says so; the undo it prints, run as
// printed, gives the pods back to the built-in controller with none
// restarted.
func TestAMigrationNobodyAdoptsStopsWithAnUndoThatWorks(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startBuiltin(t, ns)
	rec := recordPods(t, ns)
	createSet(t, webSet(ns, replicas(2)))
	waitSet(t, ns, time.Minute, "2 ready replicas", settled)
	objects, mark := snapshot(t, ns), rec.Mark()

	c := migrate.Clients{Kube: client, Extended: extendedClient(t)}
	plan, err := migrate.Prepare(context.Background(), c, ns, setops.Ref{Kind: setops.AppsV1, Name: setName}, setops.AnyKind, false)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	// The garbage collector gets as long as it needs under load; only the
	// adoption, which nobody will do, is cut short.
	err = plan.Run(context.Background(), c, migrate.RunOptions{BackupDir: t.TempDir(), Timeout: time.Minute, AdoptTimeout: 2 * time.Second,
		Out: &out, Now: time.Now})
	t.Logf("output:\n%s\nerror:\n%v", out.String(), err)
	var stuck *migrate.Stuck
	if !errors.As(err, &stuck) {
		t.Fatalf("Run returned %v, want a stopped migration", err)
	}
	if !strings.HasPrefix(stuck.State, "statefulset.apps.ordinal.dev/web exists; ") {
		t.Errorf("state %q", stuck.State)
	}
	undo := regexp.MustCompile(`^kubectl delete -n (\S+) (\S+) --cascade=orphan, then kubectl create -n (\S+) -f (\S+)$`).FindStringSubmatch(stuck.Undo)
	if undo == nil || undo[1] != ns || undo[3] != ns {
		t.Fatalf("undo %q", stuck.Undo)
	}
	kubectl(t, ns, "delete", undo[2], "--cascade=orphan")
	kubectl(t, ns, "create", "-f", undo[4])
	back := waitSet(t, ns, time.Minute, "the built-in controller to take the pods back", settled)
	ownedBy(t, ns, back.UID)
	untouched(t, ns, objects, rec, mark)
}
