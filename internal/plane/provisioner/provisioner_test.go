package provisioner

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"
)

func TestProvisionClaim(t *testing.T) {
	tests := []struct {
		name       string
		claim      *corev1.PersistentVolumeClaim
		classes    []runtime.Object
		wantClass  string
		wantPolicy corev1.PersistentVolumeReclaimPolicy
	}{
		{name: "a claim of our class gets a pre-bound hostPath volume and a directory",
			claim:     newClaim("data"),
			wantClass: DefaultStorageClass, wantPolicy: corev1.PersistentVolumeReclaimDelete},
		{name: "a claim without a class gets the default class",
			claim:     newClaim("data", withClass(nil)),
			wantClass: DefaultStorageClass, wantPolicy: corev1.PersistentVolumeReclaimDelete},
		{name: "a claim handed to us by the PersistentVolume controller is provisioned",
			claim: newClaim("data", withClass(ptr.To("legacy")),
				withAnnotation(annStorageProvisioner, DefaultName), withAnnotation(annBetaStorageProvisioner, DefaultName)),
			classes:   []runtime.Object{newClass("legacy", "kubernetes.io/no-longer-here")},
			wantClass: "legacy", wantPolicy: corev1.PersistentVolumeReclaimDelete},
		{name: "a class with reclaim policy Retain gives volumes that policy",
			claim:     newClaim("data", withClass(ptr.To("keep"))),
			classes:   []runtime.Object{newClass("keep", DefaultName, withReclaim(corev1.PersistentVolumeReclaimRetain))},
			wantClass: "keep", wantPolicy: corev1.PersistentVolumeReclaimRetain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.classes...)
			h.start()
			h.createClaim(tt.claim)

			pv := h.waitVolume("pvc-uid-data")
			dir := filepath.Join(h.root, "pvc-uid-data")
			checkVolume(t, pv, dir, tt.wantClass, tt.wantPolicy)
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				t.Errorf("volume directory %s: %v", dir, err)
			}
			h.waitEvent("Normal ProvisioningSucceeded Successfully provisioned volume pvc-uid-data")
		})
	}
}

// A local volume is pinned by the selected node's kubernetes.io/hostname
// label, as local volume provisioners pin theirs, not by the node's name:
// on a node named by its DNS name the two differ.
func TestALocalVolumeIsPinnedByTheNodesHostnameLabel(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2.example.internal", Labels: map[string]string{corev1.LabelHostname: "node-2"}}}
	h := newHarness(t, node, newClass("local", DefaultName, withBinding(storagev1.VolumeBindingWaitForFirstConsumer)))
	h.start()
	h.createClaim(newClaim("data", withClass(ptr.To("local")), withAnnotation(annSelectedNode, node.Name)))
	pv := h.waitVolume("pvc-uid-data")
	want := &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"node-2"}}}}}}}
	if diff := cmp.Diff(want, pv.Spec.NodeAffinity); diff != "" {
		t.Errorf("node affinity (-want +got):\n%s", diff)
	}
}

// checkVolume checks the fields the PersistentVolume controller's binder
// and a reader of the volume rely on.
func checkVolume(t *testing.T, pv *corev1.PersistentVolume, dir, class string, policy corev1.PersistentVolumeReclaimPolicy) {
	t.Helper()
	if got := pv.Annotations[annProvisionedBy]; got != DefaultName {
		t.Errorf("provisioned-by = %q, want %q", got, DefaultName)
	}
	if hp := pv.Spec.HostPath; hp == nil || hp.Path != dir || ptr.Deref(hp.Type, "") != corev1.HostPathDirectoryOrCreate {
		t.Errorf("hostPath = %+v, want %s DirectoryOrCreate", hp, dir)
	}
	if got, want := pv.Spec.Capacity[corev1.ResourceStorage], resource.MustParse("1Gi"); got.Cmp(want) != 0 {
		t.Errorf("capacity = %v, want %v", &got, &want)
	}
	if len(pv.Spec.AccessModes) != 1 || pv.Spec.AccessModes[0] != corev1.ReadWriteOnce {
		t.Errorf("access modes = %v, want [ReadWriteOnce]", pv.Spec.AccessModes)
	}
	if pv.Spec.StorageClassName != class {
		t.Errorf("storage class = %q, want %q", pv.Spec.StorageClassName, class)
	}
	if pv.Spec.PersistentVolumeReclaimPolicy != policy {
		t.Errorf("reclaim policy = %q, want %q", pv.Spec.PersistentVolumeReclaimPolicy, policy)
	}
	want := corev1.ObjectReference{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: "ns", Name: "data", UID: "uid-data"}
	if ref := pv.Spec.ClaimRef; ref == nil || *ref != want {
		t.Errorf("claimRef = %+v, want %+v", ref, want)
	}
}

func TestOtherClaimsAreIgnored(t *testing.T) {
	tests := []struct {
		name  string
		claim *corev1.PersistentVolumeClaim
	}{
		{name: "a claim of another provisioner's class is ignored",
			claim: newClaim("data", withClass(ptr.To("other")))},
		{name: "a claim handed to another provisioner is ignored even with our class",
			claim: newClaim("data", withAnnotation(annStorageProvisioner, otherProvisioner))},
		{name: "a claim that asks for no class is ignored",
			claim: newClaim("data", withClass(ptr.To("")))},
		{name: "a claim already bound to a volume is ignored",
			claim: newClaim("data", withSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.VolumeName = "static" }))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, newClass("other", otherProvisioner))
			h.start()
			h.createClaim(tt.claim)
			h.waitSynced(claimKey(tt.claim), 0)

			if h.volumeExists("pvc-uid-data") {
				t.Errorf("a volume was created for a claim that is not ours")
			}
			if entries, err := os.ReadDir(h.root); err != nil || len(entries) != 0 {
				t.Errorf("volume root has %d entries (err %v), want none", len(entries), err)
			}
		})
	}
}

func TestRejectedClaimGetsAnEvent(t *testing.T) {
	h := newHarness(t)
	h.start()
	claim := newClaim("data", withSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.VolumeMode = ptr.To(corev1.PersistentVolumeBlock) }))
	h.createClaim(claim)

	h.waitEvent("Warning ProvisioningFailed hostPath volumes support only volumeMode Filesystem")
	if h.volumeExists("pvc-uid-data") {
		t.Errorf("a volume was created for a claim that cannot be served")
	}
}

func TestFailedCreateIsRetried(t *testing.T) {
	h := newHarness(t)
	var failures atomic.Int32
	h.client.PrependReactor("create", "persistentvolumes", func(k8stesting.Action) (bool, runtime.Object, error) {
		if failures.Add(1) == 1 {
			return true, nil, apierrors.NewServiceUnavailable("etcd is busy")
		}
		return false, nil, nil
	})
	h.start()
	h.createClaim(newClaim("data"))

	h.waitEvent("Warning ProvisioningFailed creating volume pvc-uid-data")
	h.waitVolume("pvc-uid-data")
	h.waitEvent("Normal ProvisioningSucceeded")
}

func TestReleasedVolume(t *testing.T) {
	tests := []struct {
		name     string
		policy   corev1.PersistentVolumeReclaimPolicy
		wantKept bool
	}{
		{name: "a released volume with policy Delete loses its directory and its object",
			policy: corev1.PersistentVolumeReclaimDelete},
		{name: "a released volume with policy Retain keeps its directory and its object",
			policy: corev1.PersistentVolumeReclaimRetain, wantKept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.start()
			pv := newReleasedVolume("pvc-1", h.root, withPolicy(tt.policy), withPhase(corev1.VolumeBound))
			mustMkdir(t, filepath.Join(h.root, "pvc-1"))
			mustWrite(t, filepath.Join(h.root, "pvc-1", "data"))
			mustWrite(t, filepath.Join(h.root, "neighbour"))
			h.createVolume(pv)
			h.waitSynced(volumeKey("pvc-1"), 0)

			h.setPhase("pvc-1", corev1.VolumeReleased)
			if tt.wantKept {
				h.waitSynced(volumeKey("pvc-1"), 1)
			} else {
				h.poll("volume to be deleted", func(context.Context) (bool, error) { return !h.volumeExists("pvc-1"), nil })
			}

			_, err := os.Stat(filepath.Join(h.root, "pvc-1", "data"))
			if kept := err == nil; kept != tt.wantKept {
				t.Errorf("directory kept = %v (%v), want %v", kept, err, tt.wantKept)
			}
			if kept := h.volumeExists("pvc-1"); kept != tt.wantKept {
				t.Errorf("volume kept = %v, want %v", kept, tt.wantKept)
			}
			if _, err := os.Stat(filepath.Join(h.root, "neighbour")); err != nil {
				t.Errorf("a file beside the volume was removed: %v", err)
			}
		})
	}
}

func TestReleasedVolumeOutsideRootIsRefused(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "pvc-1")
	tests := []struct {
		name string
		path func(root string) string
	}{
		{name: "a path outside the root is refused", path: func(string) string { return outside }},
		{name: "a path that climbs out of the root is refused",
			path: func(root string) string { return root + "/../" + filepath.Base(outside) }},
		{name: "the root itself is refused", path: func(root string) string { return root }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.start()
			mustMkdir(t, outside)
			mustWrite(t, filepath.Join(outside, "precious"))
			mustWrite(t, filepath.Join(h.root, "precious"))
			h.createVolume(newReleasedVolume("pvc-1", h.root, withPath(tt.path(h.root))))

			h.waitEvent("Warning VolumeFailedDelete refusing to delete")
			if !h.volumeExists("pvc-1") {
				t.Errorf("the volume was deleted")
			}
			for _, f := range []string{filepath.Join(outside, "precious"), filepath.Join(h.root, "precious")} {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("%s was removed: %v", f, err)
				}
			}
		})
	}
}

func TestBoundVolumeSurvivesRestart(t *testing.T) {
	h := newHarness(t)
	h.start()
	claim := newClaim("data")
	h.createClaim(claim)
	h.waitVolume("pvc-uid-data")
	dir := filepath.Join(h.root, "pvc-uid-data")
	mustWrite(t, filepath.Join(dir, "state"))

	// What the PersistentVolume controller's binder does in the plane.
	bound, err := h.client.CoreV1().PersistentVolumeClaims("ns").Get(t.Context(), "data", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bound.Spec.VolumeName = "pvc-uid-data"
	if _, err := h.client.CoreV1().PersistentVolumeClaims("ns").Update(t.Context(), bound, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.setPhase("pvc-uid-data", corev1.VolumeBound)
	h.stop()

	// The new provisioner's informers list both objects, so each gets a sync
	// beyond what the first provisioner counted.
	claimSyncs, volumeSyncs := h.syncCount(claimKey(claim)), h.syncCount(volumeKey("pvc-uid-data"))
	h.start()
	h.waitSynced(claimKey(claim), claimSyncs)
	h.waitSynced(volumeKey("pvc-uid-data"), volumeSyncs)

	if _, err := os.Stat(filepath.Join(dir, "state")); err != nil {
		t.Errorf("the bound volume's data is gone after a restart: %v", err)
	}
	list, err := h.client.CoreV1().PersistentVolumes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Errorf("got %d volumes after a restart, want 1", len(list.Items))
	}
}

func TestStorageClassArrivingLaterUnblocksClaim(t *testing.T) {
	h := newHarness(t)
	h.start()
	claim := newClaim("data", withClass(ptr.To("late")))
	h.createClaim(claim)
	h.waitSynced(claimKey(claim), 0)
	if h.volumeExists("pvc-uid-data") {
		t.Fatalf("a volume was created before its class existed")
	}

	class := newClass("late", DefaultName)
	if _, err := h.client.StorageV1().StorageClasses().Create(t.Context(), class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pv := h.waitVolume("pvc-uid-data")
	if pv.Spec.StorageClassName != "late" {
		t.Errorf("storage class = %q, want late", pv.Spec.StorageClassName)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	_, err := New(Config{Root: t.TempDir()})
	if err == nil {
		t.Fatal("New without a client succeeded")
	}
}

func TestEventsReachTheAPIServerWithoutAnInjectedRecorder(t *testing.T) {
	client := fake.NewClientset(newStorageClass(Config{}.withDefaults()))
	p, err := New(Config{Client: client, Root: filepath.Join(t.TempDir(), "volumes")})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	if _, err := client.CoreV1().PersistentVolumeClaims("ns").Create(ctx, newClaim("data"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		events, err := client.CoreV1().Events("ns").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.Reason == reasonProvisioningSucceeded && e.InvolvedObject.Name == "data" && e.Source.Component == DefaultName {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("waiting for a ProvisioningSucceeded event on the claim: %v", err)
	}
}
