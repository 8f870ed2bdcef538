package planner_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// storageFixture is an InPlace set moving from old to set, whose
// revisions hold the claim templates.
type storageFixture struct {
	fixture
	old *appsv1.StatefulSet
}

// claimsInPlaceRollout builds a set of three pods whose www template asks for
// 1Gi, changed by change (the new template); the pods, Ready, run the old
// revision.
func claimsInPlaceRollout(change func(*appsv1.StatefulSet), opts ...testgen.SetOption) storageFixture {
	base := append([]testgen.SetOption{testgen.Replicas(3), testgen.Image("app:1"), testgen.ClaimTemplates("www")}, opts...)
	old := testgen.StatefulSet("web", base...)
	set := testgen.StatefulSet("web", base...)
	change(set)
	cur, upd := claimRevision(old, 1), claimRevision(set, 2)
	if cur.Name == upd.Name {
		upd = cur
	}
	set.Status.CurrentRevision, set.Status.UpdateRevision = cur.Name, upd.Name
	return storageFixture{fixture: fixture{set: set, cur: cur, upd: upd}, old: old}
}

// onClaimDelete is claimsInPlaceRollout for a set whose revisions hold
// only the pod template, as under OnClaimDelete.
func onClaimDelete(change func(*appsv1.StatefulSet)) storageFixture {
	f := claimsInPlaceRollout(change)
	f.cur, f.upd = testgen.RevisionOf(f.old, 1), testgen.RevisionOf(f.set, 2)
	f.set.Status.CurrentRevision, f.set.Status.UpdateRevision = f.cur.Name, f.upd.Name
	return f
}

func claimRevision(set *appsv1.StatefulSet, n int64) *appsv1.ControllerRevision {
	rev, err := revision.NewWith(set, n, nil, revision.Options{Claims: true})
	if err != nil {
		panic(err)
	}
	return rev
}

func size(q string) func(*appsv1.StatefulSet) {
	return func(s *appsv1.StatefulSet) {
		s.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(q)
	}
}

func image(i string) func(*appsv1.StatefulSet) {
	return func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = i }
}

func both(changes ...func(*appsv1.StatefulSet)) func(*appsv1.StatefulSet) {
	return func(s *appsv1.StatefulSet) {
		for _, c := range changes {
			c(s)
		}
	}
}

// claimsInPlace is the extended kind with InPlace claim updates and one
// StorageClass, "standard", the default, which allows expansion as given.
func claimsInPlace(expandable bool, opts ...func(*planner.Extended)) *planner.Extended {
	return extended(append([]func(*planner.Extended){func(e *planner.Extended) {
		e.ClaimUpdate = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
		o := observedOf(e)
		o.StorageClasses, o.DefaultStorageClass = map[string]bool{"standard": expandable}, "standard"
	}}, opts...)...)
}

// bound makes a claim bound with the given capacity, brought to rev.
func bound(capacity string, rev *appsv1.ControllerRevision) testgen.ClaimOption {
	return func(c *corev1.PersistentVolumeClaim) {
		c.Status.Phase = corev1.ClaimBound
		c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(capacity)}
		c.Labels[v1alpha1.ClaimRevisionLabel] = rev.Name
	}
}

func requesting(q string) testgen.ClaimOption {
	return func(c *corev1.PersistentVolumeClaim) {
		c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(q)
	}
}

// withClass gives a claim volumeAttributesClassName want and the status's
// current class.
func withClass(want, current string) testgen.ClaimOption {
	return func(c *corev1.PersistentVolumeClaim) {
		c.Spec.VolumeAttributesClassName = ptr.To(want)
		if current != "" {
			c.Status.CurrentVolumeAttributesClassName = ptr.To(current)
		}
	}
}

func claimStatus(change func(*corev1.PersistentVolumeClaimStatus)) testgen.ClaimOption {
	return func(c *corev1.PersistentVolumeClaim) { change(&c.Status) }
}

// claims are the www claims of ordinals 0..2 with the given options.
func (f storageFixture) claims(opts map[int32][]testgen.ClaimOption) []*corev1.PersistentVolumeClaim {
	var out []*corev1.PersistentVolumeClaim
	for ord := int32(0); ord < 3; ord++ {
		base := []testgen.ClaimOption{bound("1Gi", f.cur)}
		out = append(out, testgen.Claim(f.old, "www", ord, append(base, opts[ord]...)...))
	}
	return out
}

func (f storageFixture) plan(e *planner.Extended, pods []*corev1.Pod, claims []*corev1.PersistentVolumeClaim) planner.Plan {
	in := f.input(pods, claims...)
	in.Extended = e
	return compute(in)
}

// storageLines renders the plan's actions, the claim patches with what
// they write.
func (f storageFixture) storageLines(plan planner.Plan) []string {
	var lines []string
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			switch a.Kind {
			case planner.UpdateClaimStorage:
				lines = append(lines, fmt.Sprintf("%s: %s %s%s", step.Name, a.Kind, a.Claim.Name, patchSummary(f.fixture, a.Claim)))
			case planner.UpdatePod:
				lines = append(lines, fmt.Sprintf("%s: %s %s to %s", step.Name, a.Kind, a.Pod.Name, f.alias(a.Pod.Labels[appsv1.StatefulSetRevisionLabel])))
			default:
				lines = append(lines, fmt.Sprintf("%s: %s %s", step.Name, a.Kind, f.object(a)))
			}
		}
	}
	return lines
}

func patchSummary(f fixture, c *corev1.PersistentVolumeClaim) string {
	out := ""
	if q, ok := c.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		out += " storage=" + q.String()
	}
	if v := c.Spec.VolumeAttributesClassName; v != nil {
		out += " class=" + *v
	}
	if r, ok := c.Labels[v1alpha1.ClaimRevisionLabel]; ok {
		out += " revision=" + f.alias(r)
	}
	return out
}

func TestInPlaceClaimUpdates(t *testing.T) {
	grow, grown := claimsInPlaceRollout(both(size("2Gi"), image("app:2"))), claimsInPlaceRollout(size("2Gi"))
	ocd := onClaimDelete(size("2Gi"))
	vac := claimsInPlaceRollout(func(s *appsv1.StatefulSet) {
		s.Spec.VolumeClaimTemplates[0].Spec.VolumeAttributesClassName = ptr.To("fast")
	})
	resizing := []testgen.ClaimOption{requesting("2Gi"), bound("1Gi", grow.upd), claimStatus(func(s *corev1.PersistentVolumeClaimStatus) {
		s.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: corev1.PersistentVolumeClaimControllerResizeInProgress}
	})}
	cases := []struct {
		name   string
		f      storageFixture
		e      *planner.Extended
		pods   []*corev1.Pod
		claims map[int32][]testgen.ClaimOption
		want   []string
		waits  []string
	}{{
		name: "a pod's claims are patched before the pod is updated, highest ordinal first, within maxUnavailable",
		f:    grow, e: claimsInPlace(true), pods: grow.pods(0, 1, 2),
		want: []string{"rolling update: UpdateClaimStorage www-web-2 storage=2Gi revision=update"},
	}, {
		name: "the priority rules pick whose claims go first: the primary's last",
		f:    grow, e: claimsInPlace(true, func(e *planner.Extended) { e.Priority = []planner.PriorityRule{rule(-100, "role", "primary")} }),
		pods: with(grow.pods(0, 1), grow.pod(2, primary)),
		want: []string{"rolling update: UpdateClaimStorage www-web-1 storage=2Gi revision=update"},
	}, {
		name: "the update waits while the claims resize: the pod stays Ready but holds the slot",
		f:    grow, e: claimsInPlace(true), pods: grow.pods(0, 1, 2),
		claims: map[int32][]testgen.ClaimOption{2: resizing},
		waits:  []string{"web-2: Available"},
	}, {
		name: "once the claims have grown, a pod whose template changed is recreated",
		f:    grow, e: claimsInPlace(true), pods: grow.pods(0, 1, 2),
		claims: map[int32][]testgen.ClaimOption{2: {requesting("2Gi"), bound("2Gi", grow.upd)}},
		want:   []string{"rolling update: DeletePod web-2"},
	}, {
		name: "once the claims have grown, a pod whose template did not change only moves to the update revision",
		f:    grown, e: claimsInPlace(true), pods: grown.pods(0, 1, 2),
		claims: map[int32][]testgen.ClaimOption{2: {requesting("2Gi"), bound("2Gi", grown.upd)}},
		want:   []string{"rolling update: UpdatePod web-2 to update", "rolling update: UpdateClaimStorage www-web-1 storage=2Gi revision=update"},
	}, {
		name: "maxUnavailable 2 patches two pods' claims at once",
		f:    claimsInPlaceRollout(size("2Gi"), testgen.MaxUnavailable(2)), e: claimsInPlace(true), pods: grow.pods(0, 1, 2),
		want: []string{"rolling update: UpdateClaimStorage www-web-2 storage=2Gi revision=update", "rolling update: UpdateClaimStorage www-web-1 storage=2Gi revision=update"},
	}, {
		name: "a pod that is already unavailable takes no second slot for its claims",
		f:    claimsInPlaceRollout(size("2Gi"), testgen.MaxUnavailable(2), testgen.Parallel()),
		e:    claimsInPlace(true, func(e *planner.Extended) { e.SelfHealing = false }),
		pods: with(grow.pods(0, 1), grow.pod(2, testgen.NotReady(now.Add(-time.Minute)))),
		want: []string{"rolling update: UpdateClaimStorage www-web-2 storage=2Gi revision=update", "rolling update: UpdateClaimStorage www-web-1 storage=2Gi revision=update"},
	}, {
		name: "a claim that grew beyond its request is not asked for more",
		f:    grown, e: claimsInPlace(true), pods: grown.pods(0, 1, 2),
		claims: map[int32][]testgen.ClaimOption{2: {requesting("2Gi"), bound("2200Mi", grown.upd)}},
		want:   []string{"rolling update: UpdatePod web-2 to update", "rolling update: UpdateClaimStorage www-web-1 storage=2Gi revision=update"},
	}, {
		name: "a smaller template is not applied: the claim only gets the revision label",
		f:    claimsInPlaceRollout(size("512Mi")), e: claimsInPlace(true), pods: grow.pods(0, 1, 2),
		want: []string{"rolling update: UpdateClaimStorage www-web-2 revision=update", "rolling update: UpdateClaimStorage www-web-1 revision=update", "rolling update: UpdateClaimStorage www-web-0 revision=update"},
	}, {
		name: "a class that does not allow expansion stops the update before any claim is patched",
		f:    grow, e: claimsInPlace(false), pods: grow.pods(0, 1, 2),
		waits: []string{"web-2: Available"},
	}, {
		name: "an infeasible resize halts the rollout at its pod",
		f:    grow, e: claimsInPlace(true), pods: grow.pods(0, 1, 2),
		claims: map[int32][]testgen.ClaimOption{2: {requesting("2Gi"), bound("1Gi", grow.upd), claimStatus(func(s *corev1.PersistentVolumeClaimStatus) {
			s.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: corev1.PersistentVolumeClaimControllerResizeInfeasible}
		})}},
		waits: []string{"web-2: Available"},
	}, {
		name: "a lowered template recovers an infeasible resize: the request comes down to max(template, capacity)",
		f:    claimsInPlaceRollout(size("1536Mi")), e: claimsInPlace(true), pods: grow.pods(0, 1, 2),
		claims: map[int32][]testgen.ClaimOption{2: {requesting("2Gi"), bound("1Gi", grow.upd), claimStatus(func(s *corev1.PersistentVolumeClaimStatus) {
			s.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: corev1.PersistentVolumeClaimControllerResizeInfeasible}
		})}},
		want: []string{"rolling update: UpdateClaimStorage www-web-2 storage=1536Mi revision=update"},
	}, {
		name: "a new volumeAttributesClass is patched, and waited for until the claim has it",
		f: claimsInPlaceRollout(func(s *appsv1.StatefulSet) {
			s.Spec.VolumeClaimTemplates[0].Spec.VolumeAttributesClassName = ptr.To("fast")
		}),
		e: claimsInPlace(true), pods: grow.pods(0, 1, 2),
		want: []string{"rolling update: UpdateClaimStorage www-web-2 class=fast revision=update"},
	}, {
		name: "the update waits while the volumeAttributesClass is applied",
		f:    vac, e: claimsInPlace(true), pods: vac.pods(0, 1, 2),
		claims: map[int32][]testgen.ClaimOption{2: {bound("1Gi", vac.upd), withClass("fast", ""), claimStatus(func(s *corev1.PersistentVolumeClaimStatus) {
			s.ModifyVolumeStatus = &corev1.ModifyVolumeStatus{TargetVolumeAttributesClassName: "fast", Status: corev1.PersistentVolumeClaimModifyVolumeInProgress}
		})}},
		waits: []string{"web-2: Available"},
	}, {
		name: "once the claim has the new volumeAttributesClass, the pod moves to the update revision",
		f:    vac, e: claimsInPlace(true), pods: vac.pods(0, 1, 2),
		claims: map[int32][]testgen.ClaimOption{2: {bound("1Gi", vac.upd), withClass("fast", "fast")}},
		want:   []string{"rolling update: UpdatePod web-2 to update", "rolling update: UpdateClaimStorage www-web-1 class=fast revision=update"},
	}, {
		name: "a template added to a live set: claims are created for every pod, and pods are recreated to mount them",
		f:    claimsInPlaceRollout(testgen.ClaimTemplates("logs")), e: claimsInPlace(true), pods: grow.pods(0, 1, 2),
		want: []string{"replicas: CreateClaim logs-web-0", "replicas: CreateClaim logs-web-1", "replicas: CreateClaim logs-web-2",
			"rolling update: UpdateClaimStorage www-web-2 revision=update", "rolling update: UpdateClaimStorage www-web-1 revision=update", "rolling update: UpdateClaimStorage www-web-0 revision=update"},
	}, {
		name: "a removed template: the pods are recreated without it and its claims are left alone",
		f: claimsInPlaceRollout(func(s *appsv1.StatefulSet) {
			s.Spec.VolumeClaimTemplates = nil
			s.Spec.Template.Spec.Containers[0].VolumeMounts = nil
		}), e: claimsInPlace(true), pods: grow.pods(0, 1, 2),
		want: []string{"rolling update: DeletePod web-2"},
	}, {
		name: "a pod recreated at the update revision on its old, smaller claim: the claim is still grown",
		f:    grown, e: claimsInPlace(true), pods: []*corev1.Pod{grown.updated(0), grown.updated(1), grown.updated(2)},
		claims: map[int32][]testgen.ClaimOption{1: {requesting("2Gi"), bound("2Gi", grown.upd)}, 2: {requesting("2Gi"), bound("2Gi", grown.upd)}},
		want:   []string{"rolling update: UpdateClaimStorage www-web-0 storage=2Gi revision=update"},
	}, {
		name: "and so under a topology whose one domain holds every pod: the domain is not done while the claim is small",
		f:    grown, e: claimsInPlace(true, func(e *planner.Extended) {
			e.Topology = &planner.Topology{Key: "topology.kubernetes.io/zone", MaxUnavailablePerDomain: 1}
			observedOf(e).Domains = zoneNodes
		}),
		pods:   []*corev1.Pod{grown.updated(0, onNode("node-a")), grown.updated(1, onNode("node-a")), grown.updated(2, onNode("node-a"))},
		claims: map[int32][]testgen.ClaimOption{1: {requesting("2Gi"), bound("2Gi", grown.upd)}, 2: {requesting("2Gi"), bound("2Gi", grown.upd)}},
		want:   []string{"rolling update: UpdateClaimStorage www-web-0 storage=2Gi revision=update"},
	}, {
		name: "OnClaimDelete patches no claim: the templates are not in the revision",
		f:    ocd, e: extended(), pods: ocd.pods(0, 1, 2),
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := c.f.plan(c.e, c.pods, c.f.claims(c.claims))
			if diff := cmp.Diff(c.want, c.f.storageLines(plan)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.waits, waitLines(plan)); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInPlaceClaimUpdateStatus(t *testing.T) {
	grow := claimsInPlaceRollout(size("2Gi"))
	last := func(e *planner.Extended) {
		e.Last = planner.ExtendedStatus{UpdateRevision: grow.upd.Name, LastProgress: now.Add(-time.Minute), LastCompletedRevision: grow.cur.Name}
	}
	infeasible := claimStatus(func(s *corev1.PersistentVolumeClaimStatus) {
		s.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: corev1.PersistentVolumeClaimControllerResizeInfeasible}
	})
	t.Run("an infeasible resize blocks the rollout permanently and fails it", func(t *testing.T) {
		claims := grow.claims(map[int32][]testgen.ClaimOption{2: {requesting("2Gi"), bound("1Gi", grow.upd), infeasible}})
		x := grow.plan(claimsInPlace(true, last), grow.pods(0, 1, 2), claims).Extended.Status
		if len(x.BlockedBy) != 1 || x.BlockedBy[0].Pod != "web-2" || x.BlockedBy[0].Reason != planner.ReasonResizeInfeasible || !x.BlockedBy[0].Permanent {
			t.Errorf("blockedBy %+v, want web-2 ResizeInfeasible, permanent", x.BlockedBy)
		}
		if c := condition(x.Conditions, planner.ConditionProgressing); c.Reason != planner.ReasonRolloutFailed {
			t.Errorf("Progressing reason %s, want RolloutFailed", c.Reason)
		}
	})
	t.Run("a class that does not allow expansion is named in a Warning and blocks the rollout", func(t *testing.T) {
		plan := grow.plan(claimsInPlace(false, last), grow.pods(0, 1, 2), grow.claims(nil))
		x := plan.Extended.Status
		if len(x.BlockedBy) != 1 || x.BlockedBy[0].Reason != planner.ReasonExpansionNotAllowed {
			t.Errorf("blockedBy %+v, want ExpansionNotAllowed", x.BlockedBy)
		}
		if diff := cmp.Diff([]string{"ExpansionNotAllowed StorageClass/standard", "RolloutFailed Pod/web-2"}, warningReasons(plan)); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
	})
	t.Run("a resize still unfinished past the progress deadline is listed as ResizePending", func(t *testing.T) {
		stale := func(e *planner.Extended) { e.Last.LastProgress = now.Add(-11 * time.Minute) }
		claims := grow.claims(map[int32][]testgen.ClaimOption{2: {requesting("2Gi"), bound("1Gi", grow.upd)}})
		x := grow.plan(claimsInPlace(true, last, stale), grow.pods(0, 1, 2), claims).Extended.Status
		if len(x.BlockedBy) != 1 || x.BlockedBy[0].Reason != planner.ReasonResizePending || x.BlockedBy[0].Permanent {
			t.Errorf("blockedBy %+v, want web-2 ResizePending, not permanent", x.BlockedBy)
		}
		if c := condition(x.Conditions, planner.ConditionProgressing); c.Reason != planner.ReasonProgressDeadlineExceeded {
			t.Errorf("Progressing reason %s, want ProgressDeadlineExceeded", c.Reason)
		}
	})
	t.Run("volumeClaims counts the pods whose claim matches the template, and the Ready ones among them", func(t *testing.T) {
		claims := grow.claims(map[int32][]testgen.ClaimOption{1: {requesting("2Gi"), bound("2Gi", grow.upd)}, 2: {requesting("2Gi"), bound("2Gi", grow.upd)}})
		pods := with(grow.pods(0, 1), grow.pod(2, testgen.NotReady(now.Add(-time.Minute))))
		x := grow.plan(claimsInPlace(true, last), pods, claims).Extended.Status
		want := []planner.ClaimTemplateStatus{{Name: "www", MatchingReplicas: 2, ReadyReplicas: 1}}
		if diff := cmp.Diff(want, x.VolumeClaims); diff != "" {
			t.Errorf("volumeClaims (-want +got):\n%s", diff)
		}
	})
	t.Run("a refused shrink is a Warning, and the claim counts as matching", func(t *testing.T) {
		shrink := claimsInPlaceRollout(size("512Mi"))
		plan := shrink.plan(claimsInPlace(true), shrink.pods(0, 1, 2), shrink.claims(nil))
		want := []string{"ClaimShrinkRefused PersistentVolumeClaim/www-web-2", "ClaimShrinkRefused PersistentVolumeClaim/www-web-1", "ClaimShrinkRefused PersistentVolumeClaim/www-web-0"}
		if diff := cmp.Diff(want, warningReasons(plan)); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
		if got := plan.Extended.Status.VolumeClaims; len(got) != 1 || got[0].MatchingReplicas != 3 {
			t.Errorf("volumeClaims %+v, want 3 matching", got)
		}
	})
	t.Run("a claim an extended set creates names the update revision", func(t *testing.T) {
		plan := grow.plan(claimsInPlace(true), grow.pods(0, 1), grow.claims(nil)[:2])
		var labels []string
		for _, s := range plan.Steps {
			for _, a := range s.Actions {
				if a.Kind == planner.CreateClaim {
					labels = append(labels, a.Claim.Name+" "+grow.alias(a.Claim.Labels[v1alpha1.ClaimRevisionLabel]))
				}
			}
		}
		if diff := cmp.Diff([]string{"www-web-2 update"}, labels); diff != "" {
			t.Errorf("created claims (-want +got):\n%s", diff)
		}
	})
	t.Run("an apps/v1 set's claims carry no claim-revision label", func(t *testing.T) {
		f := onClaimDelete(size("1Gi"))
		plan := f.plan(nil, f.pods(0, 1), f.claims(nil)[:2])
		created := 0
		for _, s := range plan.Steps {
			for _, a := range s.Actions {
				if a.Kind != planner.CreateClaim {
					continue
				}
				created++
				if _, ok := a.Claim.Labels[v1alpha1.ClaimRevisionLabel]; ok {
					t.Errorf("claim %s labelled %v", a.Claim.Name, a.Claim.Labels)
				}
			}
		}
		if created != 1 {
			t.Errorf("%d claims created, want 1", created)
		}
	})
}
