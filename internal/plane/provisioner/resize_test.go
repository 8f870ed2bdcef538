package provisioner

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// boundClaim is a claim of 1Gi capacity asking for request, with status
// fields set by opts.
func boundClaim(request string, opts ...claimOpt) *corev1.PersistentVolumeClaim {
	c := newClaim("data", withSpec(func(s *corev1.PersistentVolumeClaimSpec) {
		s.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(request)
		s.VolumeName = "pvc-uid-data"
	}))
	c.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound,
		Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}
	for _, o := range opts {
		o(c)
	}
	return c
}

func allocated(size string, st corev1.ClaimResourceStatus) claimOpt {
	return func(c *corev1.PersistentVolumeClaim) {
		c.Status.AllocatedResources = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}
		c.Status.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: st}
	}
}

func condition(t corev1.PersistentVolumeClaimConditionType, at time.Time) claimOpt {
	return func(c *corev1.PersistentVolumeClaim) {
		c.Status.Conditions = append(c.Status.Conditions, corev1.PersistentVolumeClaimCondition{
			Type: t, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)})
	}
}

func sizedVolume(size string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{
		Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}}
}

func TestPlanResize(t *testing.T) {
	max5 := resource.MustParse("5Gi")
	tests := []struct {
		name  string
		claim *corev1.PersistentVolumeClaim
		pv    string
		sim   simResize
		want  resizeAction
		size  string
		after time.Duration
	}{
		{name: "a request equal to the capacity needs nothing",
			claim: boundClaim("1Gi"), pv: "1Gi", want: resizeNone},
		{name: "a larger request is first recorded as allocated",
			claim: boundClaim("2Gi"), pv: "1Gi", want: resizeMark, size: "2Gi"},
		{name: "a recorded resize asks the storage, which grows the volume",
			claim: boundClaim("2Gi", allocated("2Gi", corev1.PersistentVolumeClaimControllerResizeInProgress)),
			pv:    "1Gi", want: resizeExpand, size: "2Gi"},
		{name: "a pending file system resize is started on the node",
			claim: boundClaim("2Gi", allocated("2Gi", corev1.PersistentVolumeClaimNodeResizePending)),
			pv:    "2Gi", want: resizeNodeStart, size: "2Gi"},
		{name: "a file system resize in progress finishes with the volume's size",
			claim: boundClaim("2Gi", allocated("2Gi", corev1.PersistentVolumeClaimNodeResizeInProgress)),
			pv:    "2Gi", want: resizeNodeDone, size: "2Gi"},
		{name: "a slow storage is waited for until the delay since Resizing has passed",
			claim: boundClaim("2Gi", allocated("2Gi", corev1.PersistentVolumeClaimControllerResizeInProgress),
				condition(corev1.PersistentVolumeClaimResizing, t0.Add(-4*time.Second))),
			pv: "1Gi", sim: simResize{mode: simResizeSlow, delay: 10 * time.Second}, want: resizeWait, size: "2Gi", after: 6 * time.Second},
		{name: "a slow storage answers once the delay has passed",
			claim: boundClaim("2Gi", allocated("2Gi", corev1.PersistentVolumeClaimControllerResizeInProgress),
				condition(corev1.PersistentVolumeClaimResizing, t0.Add(-10*time.Second))),
			pv: "1Gi", sim: simResize{mode: simResizeSlow, delay: 10 * time.Second}, want: resizeExpand, size: "2Gi"},
		{name: "a failing storage fails the resize",
			claim: boundClaim("2Gi", allocated("2Gi", corev1.PersistentVolumeClaimControllerResizeInProgress)),
			pv:    "1Gi", sim: simResize{mode: simResizeFail}, want: resizeFail, size: "2Gi"},
		{name: "an infeasible storage makes the resize infeasible",
			claim: boundClaim("2Gi", allocated("2Gi", corev1.PersistentVolumeClaimControllerResizeInProgress)),
			pv:    "1Gi", sim: simResize{mode: simResizeInfeasible}, want: resizeInfeasible, size: "2Gi"},
		{name: "more than the storage's maximum is infeasible",
			claim: boundClaim("8Gi", allocated("8Gi", corev1.PersistentVolumeClaimControllerResizeInProgress)),
			pv:    "1Gi", sim: simResize{max: &max5}, want: resizeInfeasible, size: "8Gi"},
		{name: "the storage's maximum itself is accepted",
			claim: boundClaim("5Gi", allocated("5Gi", corev1.PersistentVolumeClaimControllerResizeInProgress)),
			pv:    "1Gi", sim: simResize{max: &max5}, want: resizeExpand, size: "5Gi"},
		{name: "an infeasible resize waits for another request",
			claim: boundClaim("8Gi", allocated("8Gi", corev1.PersistentVolumeClaimControllerResizeInfeasible)),
			pv:    "1Gi", want: resizeNone, size: "8Gi"},
		{name: "a lowered request after an infeasible resize starts a resize to it",
			claim: boundClaim("4Gi", allocated("8Gi", corev1.PersistentVolumeClaimControllerResizeInfeasible),
				condition(corev1.PersistentVolumeClaimControllerResizeError, t0)),
			pv: "1Gi", want: resizeMark, size: "4Gi"},
		{name: "a lowered request after a failed resize starts a resize to it",
			claim: boundClaim("4Gi", allocated("8Gi", corev1.PersistentVolumeClaimControllerResizeInProgress),
				condition(corev1.PersistentVolumeClaimControllerResizeError, t0)),
			pv: "1Gi", want: resizeMark, size: "4Gi"},
		{name: "a changed request while a resize is under way finishes that resize first",
			claim: boundClaim("4Gi", allocated("8Gi", corev1.PersistentVolumeClaimControllerResizeInProgress)),
			pv:    "1Gi", want: resizeExpand, size: "8Gi"},
		{name: "a volume grown before its claim was updated completes the recorded resize",
			claim: boundClaim("2Gi", allocated("2Gi", corev1.PersistentVolumeClaimControllerResizeInProgress)),
			pv:    "2Gi", want: resizeExpand, size: "2Gi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planResize(tt.claim, sizedVolume(tt.pv), tt.sim, t0)
			if got.action != tt.want || got.after != tt.after {
				t.Errorf("planResize() = %+v, want action %d after %v", got, tt.want, tt.after)
			}
			if tt.size != "" && got.size.Cmp(resource.MustParse(tt.size)) != 0 {
				t.Errorf("planResize() size = %s, want %s", got.size.String(), tt.size)
			}
		})
	}
}

func TestResizedStatusWalksThroughUpstreamsStates(t *testing.T) {
	pv := sizedVolume("1Gi")
	claim := boundClaim("2Gi")
	type step struct {
		status     corev1.ClaimResourceStatus
		conditions []corev1.PersistentVolumeClaimConditionType
		capacity   string
	}
	var got []step
	for range 4 {
		plan := planResize(claim, pv, simResize{}, t0)
		if plan.action == resizeExpand {
			pv = sizedVolume(plan.size.String())
		}
		claim.Status = *resizedStatus(claim, plan, t0)
		s := step{status: claim.Status.AllocatedResourceStatuses[corev1.ResourceStorage]}
		for _, c := range claim.Status.Conditions {
			s.conditions = append(s.conditions, c.Type)
		}
		q := claim.Status.Capacity[corev1.ResourceStorage]
		s.capacity = q.String()
		got = append(got, s)
	}
	want := []step{
		{corev1.PersistentVolumeClaimControllerResizeInProgress, []corev1.PersistentVolumeClaimConditionType{corev1.PersistentVolumeClaimResizing}, "1Gi"},
		{corev1.PersistentVolumeClaimNodeResizePending, []corev1.PersistentVolumeClaimConditionType{corev1.PersistentVolumeClaimResizing, corev1.PersistentVolumeClaimFileSystemResizePending}, "1Gi"},
		{corev1.PersistentVolumeClaimNodeResizeInProgress, []corev1.PersistentVolumeClaimConditionType{corev1.PersistentVolumeClaimResizing, corev1.PersistentVolumeClaimFileSystemResizePending}, "1Gi"},
		{"", nil, "2Gi"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(step{})); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if claim.Status.AllocatedResourceStatuses != nil {
		t.Errorf("allocatedResourceStatuses = %v, want none", claim.Status.AllocatedResourceStatuses)
	}
	if a := claim.Status.AllocatedResources[corev1.ResourceStorage]; a.Cmp(resource.MustParse("2Gi")) != 0 {
		t.Errorf("allocatedResources = %s, want 2Gi", a.String())
	}
}

func TestMergeResizeConditionsKeepsOthersAndTransitionTimes(t *testing.T) {
	earlier := metav1.NewTime(t0.Add(-time.Hour))
	old := []corev1.PersistentVolumeClaimCondition{
		{Type: corev1.PersistentVolumeClaimResizing, Status: corev1.ConditionTrue, LastTransitionTime: earlier},
		{Type: corev1.PersistentVolumeClaimControllerResizeError, Status: corev1.ConditionTrue, LastTransitionTime: earlier},
		{Type: corev1.PersistentVolumeClaimVolumeModifyingVolume, Status: corev1.ConditionTrue},
	}
	got := mergeResizeConditions(old, false, corev1.PersistentVolumeClaimCondition{
		Type: corev1.PersistentVolumeClaimResizing, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)})
	want := []corev1.PersistentVolumeClaimCondition{old[0], old[2]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
}

func TestParseSimResize(t *testing.T) {
	tests := []struct {
		name    string
		ann     map[string]string
		wantErr string
		want    string
	}{
		{name: "no annotation means an immediate resize", want: ""},
		{name: "slow with a delay", ann: map[string]string{annResize: "slow", annResizeDelay: "3s"}, want: "slow 3s"},
		{name: "an unknown mode is named", ann: map[string]string{annResize: "sometimes"}, wantErr: `annotation sim.ordinal.dev/resize: "sometimes" is not one of slow, fail, infeasible`},
		{name: "a bad delay is named", ann: map[string]string{annResizeDelay: "soon"}, wantErr: `annotation sim.ordinal.dev/resize-delay: "soon" is not a duration such as 10s`},
		{name: "a bad maximum is named", ann: map[string]string{annResizeMax: "0"}, wantErr: `annotation sim.ordinal.dev/resize-max: "0" is not a positive quantity such as 5Gi`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClaim("data")
			c.Annotations = tt.ann
			sim, err := parseSimResize(c)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("parseSimResize() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := sim.mode + map[bool]string{true: " " + sim.delay.String()}[sim.mode == simResizeSlow]; got != tt.want {
				t.Errorf("parseSimResize() = %q, want %q", got, tt.want)
			}
		})
	}
}
