package provisioner

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const testRoot = "/data/volumes"

func TestPlanClaim(t *testing.T) {
	classes := []*storagev1.StorageClass{
		newClass(DefaultStorageClass, DefaultName, asDefault),
		newClass("other", otherProvisioner),
		newClass("late", DefaultName, withBinding(storagev1.VolumeBindingWaitForFirstConsumer)),
	}
	noDefault := []*storagev1.StorageClass{newClass(DefaultStorageClass, DefaultName)}
	deleting := metav1.NewTime(time.Unix(1, 0))

	tests := []struct {
		name      string
		claim     *corev1.PersistentVolumeClaim
		classes   []*storagev1.StorageClass
		exists    bool
		want      claimAction
		wantClass string
	}{
		{name: "a claim of our class is provisioned with that class",
			claim: newClaim("a"), want: claimProvision, wantClass: DefaultStorageClass},
		{name: "a claim without a class gets the default class",
			claim: newClaim("a", withClass(nil)), want: claimProvision, wantClass: DefaultStorageClass},
		{name: "a claim without a class is ignored when there is no default class",
			claim: newClaim("a", withClass(nil)), classes: noDefault, want: claimIgnore},
		{name: "a claim that asks for no class is ignored",
			claim: newClaim("a", withClass(ptr.To(""))), want: claimIgnore},
		{name: "the legacy class annotation wins over spec",
			claim: newClaim("a", withClass(ptr.To("other")), withAnnotation(corev1.BetaStorageClassAnnotation, DefaultStorageClass)),
			want:  claimProvision, wantClass: DefaultStorageClass},
		{name: "a claim of another provisioner's class is ignored",
			claim: newClaim("a", withClass(ptr.To("other"))), want: claimIgnore},
		{name: "a claim of an unknown class is ignored",
			claim: newClaim("a", withClass(ptr.To("missing"))), want: claimIgnore},
		{name: "a claim annotated for another provisioner is ignored even with our class",
			claim: newClaim("a", withAnnotation(annStorageProvisioner, otherProvisioner)), want: claimIgnore},
		{name: "a claim annotated for us is provisioned even if its class names another provisioner",
			claim: newClaim("a", withClass(ptr.To("other")), withAnnotation(annStorageProvisioner, DefaultName)),
			want:  claimProvision, wantClass: "other"},
		{name: "the beta storage-provisioner annotation counts too",
			claim: newClaim("a", withClass(ptr.To("other")), withAnnotation(annBetaStorageProvisioner, DefaultName)),
			want:  claimProvision, wantClass: "other"},
		{name: "a claim annotated for us waits while its class is missing",
			claim: newClaim("a", withClass(ptr.To("missing")), withAnnotation(annStorageProvisioner, DefaultName)),
			want:  claimWait},
		{name: "a bound claim is ignored",
			claim: newClaim("a", withSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.VolumeName = "pv" })), want: claimIgnore},
		{name: "a claim being deleted is ignored",
			claim: newClaim("a", func(c *corev1.PersistentVolumeClaim) { c.DeletionTimestamp = &deleting }), want: claimIgnore},
		{name: "a claim whose volume exists is left to the binder",
			claim: newClaim("a"), exists: true, want: claimIgnore},
		{name: "a WaitForFirstConsumer claim waits for the scheduler",
			claim: newClaim("a", withClass(ptr.To("late"))), want: claimWait},
		{name: "a WaitForFirstConsumer claim with a selected node is provisioned",
			claim: newClaim("a", withClass(ptr.To("late")), withAnnotation(annSelectedNode, "kwok-0")),
			want:  claimProvision, wantClass: "late"},
		{name: "a block-mode claim is rejected",
			claim: newClaim("a", withSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.VolumeMode = ptr.To(corev1.PersistentVolumeBlock) })),
			want:  claimReject},
		{name: "a claim with a data source is rejected",
			claim: newClaim("a", withSpec(func(s *corev1.PersistentVolumeClaimSpec) {
				s.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "src"}
			})),
			want: claimReject},
		{name: "a claim with a selector is rejected",
			claim: newClaim("a", withSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.Selector = &metav1.LabelSelector{} })),
			want:  claimReject},
		{name: "a claim without a storage request is rejected",
			claim: newClaim("a", withSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.Resources.Requests = nil })),
			want:  claimReject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := tt.classes
			if cs == nil {
				cs = classes
			}
			got := planClaim(tt.claim, cs, tt.exists, DefaultName)
			if got.action != tt.want {
				t.Fatalf("action = %v (%s), want %v", got.action, got.reason, tt.want)
			}
			if got.reason == "" {
				t.Errorf("plan has no reason")
			}
			gotClass := ""
			if got.class != nil {
				gotClass = got.class.Name
			}
			if gotClass != tt.wantClass {
				t.Errorf("class = %q, want %q", gotClass, tt.wantClass)
			}
		})
	}
}

func TestPlanVolume(t *testing.T) {
	tests := []struct {
		name    string
		pv      *corev1.PersistentVolume
		want    volumeAction
		wantDir string
	}{
		{name: "a released volume of ours with policy Delete is deleted",
			pv: newReleasedVolume("pvc-1", testRoot), want: volumeDelete, wantDir: "pvc-1"},
		{name: "a trailing slash does not change the directory",
			pv: newReleasedVolume("pvc-1", testRoot, withPath(testRoot+"/pvc-1/")), want: volumeDelete, wantDir: "pvc-1"},
		{name: "a released volume with policy Retain is kept",
			pv: newReleasedVolume("pvc-1", testRoot, withPolicy(corev1.PersistentVolumeReclaimRetain)), want: volumeKeep},
		{name: "a bound volume is kept",
			pv: newReleasedVolume("pvc-1", testRoot, withPhase(corev1.VolumeBound)), want: volumeKeep},
		{name: "a failed volume is kept",
			pv: newReleasedVolume("pvc-1", testRoot, withPhase(corev1.VolumeFailed)), want: volumeKeep},
		{name: "another provisioner's volume is kept",
			pv: newReleasedVolume("pvc-1", testRoot, withProvisionedBy(otherProvisioner)), want: volumeKeep},
		{name: "a path outside the root is refused",
			pv: newReleasedVolume("pvc-1", testRoot, withPath("/etc")), want: volumeRefuse},
		{name: "a path that climbs out of the root is refused",
			pv: newReleasedVolume("pvc-1", testRoot, withPath(testRoot+"/../pvc-1")), want: volumeRefuse},
		{name: "the root itself is refused",
			pv: newReleasedVolume("pvc-1", testRoot, withPath(testRoot)), want: volumeRefuse},
		{name: "another volume's directory is refused",
			pv: newReleasedVolume("pvc-1", testRoot, withPath(testRoot+"/pvc-2")), want: volumeRefuse},
		{name: "a directory nested in the volume's is refused",
			pv: newReleasedVolume("pvc-1", testRoot, withPath(testRoot+"/pvc-1/data")), want: volumeRefuse},
		{name: "a relative path is refused",
			pv: newReleasedVolume("pvc-1", testRoot, withPath("data/volumes/pvc-1")), want: volumeRefuse},
		{name: "a volume without a hostPath is refused",
			pv: newReleasedVolume("pvc-1", testRoot, func(v *corev1.PersistentVolume) { v.Spec.HostPath = nil }), want: volumeRefuse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planVolume(tt.pv, DefaultName, testRoot)
			if got.action != tt.want || got.dir != tt.wantDir {
				t.Fatalf("plan = %v dir %q (%s), want %v dir %q", got.action, got.dir, got.reason, tt.want, tt.wantDir)
			}
			if got.reason == "" {
				t.Errorf("plan has no reason")
			}
		})
	}
}

func TestNewVolume(t *testing.T) {
	tests := []struct {
		name       string
		class      *storagev1.StorageClass
		wantPolicy corev1.PersistentVolumeReclaimPolicy
		wantNode   string
	}{
		{name: "a WaitForFirstConsumer class gives a volume pinned to the selected node",
			class: newClass("local", DefaultName, withBinding(storagev1.VolumeBindingWaitForFirstConsumer)), wantPolicy: corev1.PersistentVolumeReclaimDelete,
			wantNode: "node-2"},
		{name: "a class without a reclaim policy gives Delete",
			class: newClass("fast", DefaultName), wantPolicy: corev1.PersistentVolumeReclaimDelete},
		{name: "a class with reclaim policy Retain gives Retain",
			class: newClass("fast", DefaultName, withReclaim(corev1.PersistentVolumeReclaimRetain)), wantPolicy: corev1.PersistentVolumeReclaimRetain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claim := newClaim("data", withSpec(func(s *corev1.PersistentVolumeClaimSpec) {
				s.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany}
				s.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("3Gi")
			}))
			claim.Annotations = map[string]string{annSelectedNode: "node-2"}
			want := &corev1.PersistentVolume{
				ObjectMeta: metav1.ObjectMeta{
					Name:        "pvc-uid-data",
					Annotations: map[string]string{annProvisionedBy: DefaultName},
				},
				Spec: corev1.PersistentVolumeSpec{
					Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("3Gi")},
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany},
					PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
						Path: testRoot + "/pvc-uid-data", Type: ptr.To(corev1.HostPathDirectoryOrCreate),
					}},
					ClaimRef: &corev1.ObjectReference{
						APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: "ns", Name: "data", UID: "uid-data",
					},
					PersistentVolumeReclaimPolicy: tt.wantPolicy,
					StorageClassName:              tt.class.Name,
					VolumeMode:                    ptr.To(corev1.PersistentVolumeFilesystem),
				},
			}
			if tt.wantNode != "" {
				want.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{tt.wantNode}}},
				}}}}
			}
			host, pinned := pinsToNode(claim, tt.class)
			if pinned != (tt.wantNode != "") {
				t.Errorf("pinned to a node %t, want %t", pinned, tt.wantNode != "")
			}
			if !pinned {
				host = ""
			}
			got := newVolume(claim, tt.class, DefaultName, testRoot, host)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("newVolume mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
