package provisioner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"
)

func TestEnsureStorageClass(t *testing.T) {
	custom := newClass(DefaultStorageClass, otherProvisioner, withReclaim(corev1.PersistentVolumeReclaimRetain))
	ours := map[string]string{annDefaultClass: "true", annExpansionDefaulted: "true"}
	// old is our class as planes made it before they could grow volumes.
	old := newStorageClass(Config{}.withDefaults())
	old.AllowVolumeExpansion = ptr.To(false)
	delete(old.Annotations, annExpansionDefaulted)
	upgraded := newStorageClass(Config{}.withDefaults())
	// adminOff is our class after an administrator turned expansion off.
	adminOff := newStorageClass(Config{}.withDefaults())
	adminOff.AllowVolumeExpansion = ptr.To(false)
	otherOff := newClass(DefaultStorageClass, otherProvisioner, func(c *storagev1.StorageClass) { c.AllowVolumeExpansion = ptr.To(false) })
	tests := []struct {
		name      string
		existing  []runtime.Object
		cfg       Config
		want      *storagev1.StorageClass
		wantPatch bool
	}{
		{name: "a missing class is created as the default class with policy Delete",
			want: &storagev1.StorageClass{
				ObjectMeta:           metav1.ObjectMeta{Name: DefaultStorageClass, Annotations: ours},
				Provisioner:          DefaultName,
				ReclaimPolicy:        ptr.To(corev1.PersistentVolumeReclaimDelete),
				VolumeBindingMode:    ptr.To(storagev1.VolumeBindingImmediate),
				AllowVolumeExpansion: ptr.To(true),
			}},
		{name: "the configured names are used",
			cfg: Config{Name: "example.com/dirs", StorageClass: "local"},
			want: &storagev1.StorageClass{
				ObjectMeta:           metav1.ObjectMeta{Name: "local", Annotations: ours},
				Provisioner:          "example.com/dirs",
				ReclaimPolicy:        ptr.To(corev1.PersistentVolumeReclaimDelete),
				VolumeBindingMode:    ptr.To(storagev1.VolumeBindingImmediate),
				AllowVolumeExpansion: ptr.To(true),
			}},
		{name: "an existing class of the same name is left as it is",
			existing: []runtime.Object{custom.DeepCopy()}, want: custom},
		{name: "our class from before expansion gets expansion once, marked",
			existing: []runtime.Object{old}, want: upgraded, wantPatch: true},
		{name: "our class whose expansion an administrator turned off stays off",
			existing: []runtime.Object{adminOff.DeepCopy()}, want: adminOff},
		{name: "another provisioner's class without expansion is left alone",
			existing: []runtime.Object{otherOff.DeepCopy()}, want: otherOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			client := fake.NewClientset(tt.existing...)
			// Twice: the second call must change nothing.
			for range 2 {
				if err := EnsureStorageClass(ctx, client, tt.cfg); err != nil {
					t.Fatalf("EnsureStorageClass: %v", err)
				}
			}
			list, err := client.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Items) != 1 {
				t.Fatalf("got %d storage classes, want 1", len(list.Items))
			}
			got := &list.Items[0]
			got.TypeMeta, got.ResourceVersion, got.ManagedFields = metav1.TypeMeta{}, "", nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("storage class mismatch (-want +got):\n%s", diff)
			}
			patches := 0
			for _, a := range client.Actions() {
				if a.Matches("patch", "storageclasses") {
					patches++
				}
				if a.Matches("update", "storageclasses") || a.Matches("delete", "storageclasses") {
					t.Errorf("unexpected %s of a storage class", a.GetVerb())
				}
			}
			// Two calls, at most one patch: the mark stops the second.
			if want := map[bool]int{true: 1}[tt.wantPatch]; patches != want {
				t.Errorf("got %d patches of storage classes, want %d", patches, want)
			}
		})
	}
}

func TestEnsureStorageClassErrors(t *testing.T) {
	tests := []struct {
		name    string
		verb    string
		wantErr bool
	}{
		{name: "a failed get is reported", verb: "get", wantErr: true},
		{name: "a failed create is reported", verb: "create", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			boom := errors.New("boom")
			client.PrependReactor(tt.verb, "storageclasses", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, boom
			})
			err := EnsureStorageClass(context.Background(), client, Config{})
			if gotErr := err != nil; gotErr != tt.wantErr || (err != nil && !errors.Is(err, boom)) {
				t.Errorf("EnsureStorageClass() = %v, want an error wrapping %v", err, boom)
			}
		})
	}
}

func TestDefaultClass(t *testing.T) {
	at := func(sec int64) classOpt {
		return func(c *storagev1.StorageClass) { c.CreationTimestamp = metav1.NewTime(time.Unix(sec, 0)) }
	}
	betaDefault := func(c *storagev1.StorageClass) {
		c.Annotations = map[string]string{annBetaDefaultClass: "true"}
	}
	tests := []struct {
		name    string
		classes []*storagev1.StorageClass
		want    string
	}{
		{name: "no class marked default gives none",
			classes: []*storagev1.StorageClass{newClass("a", DefaultName)}, want: ""},
		{name: "the one marked default is chosen",
			classes: []*storagev1.StorageClass{newClass("a", DefaultName), newClass("b", DefaultName, asDefault)}, want: "b"},
		{name: "the legacy beta mark counts",
			classes: []*storagev1.StorageClass{newClass("a", DefaultName, betaDefault)}, want: "a"},
		{name: "of several defaults the newest wins",
			classes: []*storagev1.StorageClass{newClass("old", DefaultName, asDefault, at(1)), newClass("new", DefaultName, asDefault, at(2))}, want: "new"},
		{name: "of defaults of the same age the first by name wins",
			classes: []*storagev1.StorageClass{newClass("b", DefaultName, asDefault, at(1)), newClass("a", DefaultName, asDefault, at(1))}, want: "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if c := defaultClass(tt.classes); c != nil {
				got = c.Name
			}
			if got != tt.want {
				t.Errorf("defaultClass() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	client := fake.NewClientset()
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{name: "a client and a root are enough", cfg: Config{Client: client, Root: "/v"}},
		{name: "a missing client is an error", cfg: Config{Root: "/v"}, wantErr: true},
		{name: "a missing root is an error", cfg: Config{Client: client}, wantErr: true},
		{name: "a provisioner name the API server would reject is an error",
			cfg: Config{Client: client, Root: "/v", Name: "not a name"}, wantErr: true},
		{name: "a class name the API server would reject is an error",
			cfg: Config{Client: client, Root: "/v", StorageClass: "Not_A_Class"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err != nil) != tt.wantErr {
				t.Errorf("Validate() = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}
