package revision

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/ordinal-sh/ordinal/internal/defaults"
)

// HashLabel is the label that carries a revision's bare hash (the pod label
// controller-revision-hash carries the revision's name instead).
const HashLabel = "controller.kubernetes.io/hash"

// maxPrefix keeps revision names within the 253-byte object name limit:
// 223 bytes of set name, a dash and a hash of at most 10 characters, with
// room to spare, as upstream reserves.
const maxPrefix = 223

// setKind is the owner kind recorded on every revision.
var setKind = appsv1.SchemeGroupVersion.WithKind("StatefulSet")

// Patch returns the data of the revision for set: the pod template wrapped as
// a strategic merge patch that replaces the whole template. The set is
// encoded with apiVersion and kind first because upstream encodes through
// the apps/v1 codec; only spec.template survives, so those fields never
// reach the output, but keeping the same pipeline (typed JSON, generic map,
// json.Marshal with sorted keys) is what makes the bytes identical.
func Patch(set *appsv1.StatefulSet) ([]byte, error) {
	return PatchWith(set, Options{})
}

// PatchWith is Patch with what opts adds to the revision: with Claims, the
// spec's volumeClaimTemplates too (see claimTemplates), after the template.
// Without it the bytes are exactly Patch's, so a set whose revisions never
// held templates keeps its revision names.
func PatchWith(set *appsv1.StatefulSet, opts Options) ([]byte, error) {
	typed := set.DeepCopy()
	typed.APIVersion, typed.Kind = setKind.GroupVersion().String(), setKind.Kind
	encoded, err := json.Marshal(typed)
	if err != nil {
		return nil, fmt.Errorf("encoding statefulset %s: %w", set.Name, err)
	}
	var raw map[string]any
	if err := json.Unmarshal(encoded, &raw); err != nil {
		return nil, fmt.Errorf("decoding statefulset %s: %w", set.Name, err)
	}
	spec, _ := raw["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	if template == nil {
		return nil, fmt.Errorf("statefulset %s has no spec.template", set.Name)
	}
	template["$patch"] = "replace"
	out := map[string]any{"template": template}
	if opts.Claims {
		out["volumeClaimTemplates"] = claimTemplates(set.Spec.VolumeClaimTemplates)
	}
	if len(opts.Overrides) > 0 {
		list, err := overridesData(opts.Overrides)
		if err != nil {
			return nil, fmt.Errorf("encoding overrides of statefulset %s: %w", set.Name, err)
		}
		out["overrides"] = list
	}
	return json.Marshal(map[string]any{"spec": out})
}

// Hash returns the SafeEncoded FNV-1 32-bit hash of data followed by the
// decimal collision count (0 when nil), as history.HashControllerRevision
// computes it for revisions that carry raw data only.
func Hash(data []byte, collisionCount *int32) string {
	h := fnv.New32()
	h.Write(data)
	var probe int32
	if collisionCount != nil {
		probe = *collisionCount
	}
	h.Write([]byte(strconv.FormatInt(int64(probe), 10)))
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// Name returns the revision name for a set and hash: "<set>-<hash>", with the
// set name cut to 223 bytes so the result stays a valid object name.
func Name(setName, hash string) string {
	if len(setName) > maxPrefix {
		setName = setName[:maxPrefix]
	}
	return setName + "-" + hash
}

// New builds the revision upstream would create for set with the given
// .revision number and collision count. The result is not persisted; the
// caller creates it. Annotations of the set (including change-cause) are
// copied because kubectl rollout history reads them from the revision.
func New(set *appsv1.StatefulSet, revisionNumber int64, collisionCount *int32) (*appsv1.ControllerRevision, error) {
	return NewWith(set, revisionNumber, collisionCount, Options{})
}

// NewWith is New for a revision that holds what opts adds.
func NewWith(set *appsv1.StatefulSet, revisionNumber int64, collisionCount *int32, opts Options) (*appsv1.ControllerRevision, error) {
	data, err := PatchWith(set, opts)
	if err != nil {
		return nil, err
	}
	hash := Hash(data, collisionCount)
	labels := make(map[string]string, len(set.Spec.Template.Labels)+1)
	for k, v := range set.Spec.Template.Labels {
		labels[k] = v
	}
	labels[HashLabel] = hash
	annotations := make(map[string]string, len(set.Annotations))
	for k, v := range set.Annotations {
		annotations[k] = v
	}
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:            Name(set.Name, hash),
			Namespace:       set.Namespace,
			Labels:          labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, setKind)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: revisionNumber,
	}, nil
}

// ForCollision builds the revision to try after a create of first failed
// with AlreadyExists against a revision with different data: the same
// revision renamed with the hash of its data and the bumped collision
// count (which the caller later records in status.collisionCount, never
// decreasing). Everything else stays first's, the hash label included, as
// upstream's history keeps the label of the first attempt.
func ForCollision(setName string, first *appsv1.ControllerRevision, collisionCount int32) *appsv1.ControllerRevision {
	retry := first.DeepCopy()
	retry.Name = Name(setName, Hash(first.Data.Raw, &collisionCount))
	return retry
}

// Apply returns a copy of set whose spec.template is the one recorded in
// rev. Everything else (replicas, strategy, status) stays the live set's,
// because revisions record only the template. Only the spec is taken from
// the patched set, as upstream does from 1.37: a revision whose data also
// holds metadata or status (written by hand or by another tool) cannot
// change the namespace, name, UID or labels the set's pods and claims are
// made with. Upstream 1.36 and earlier took the whole patched set.
func Apply(set *appsv1.StatefulSet, rev *appsv1.ControllerRevision) (*appsv1.StatefulSet, error) {
	original, err := json.Marshal(set)
	if err != nil {
		return nil, fmt.Errorf("encoding statefulset %s: %w", set.Name, err)
	}
	patched, err := strategicpatch.StrategicMergePatch(original, rev.Data.Raw, &appsv1.StatefulSet{})
	if err != nil {
		return nil, fmt.Errorf("applying revision %s: %w", rev.Name, err)
	}
	restored := &appsv1.StatefulSet{}
	if err := json.Unmarshal(patched, restored); err != nil {
		return nil, fmt.Errorf("decoding statefulset patched with revision %s: %w", rev.Name, err)
	}
	out := set.DeepCopy()
	out.Spec = restored.Spec
	return out, nil
}

// Equal reports whether two revisions hold the same data, as upstream's
// EqualRevision: both nil, or identical raw bytes and semantically equal
// objects. Hash labels are deliberately not compared.
func Equal(a, b *appsv1.ControllerRevision) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(a.Data.Raw, b.Data.Raw) && apiequality.Semantic.DeepEqual(a.Data.Object, b.Data.Object)
}

// SemanticallyEqual reports whether restoring rev onto set, with the
// API server's defaults applied to the result, and re-encoding it gives the
// same revision data as set itself, as upstream's
// StatefulSetSemanticRevisionComparison (on in 1.36) compares. This absorbs
// serialization changes between Kubernetes versions (1.34 stopped writing
// "creationTimestamp":null, upstream #134773, fixed by #135017) and
// revisions written before a defaulted field existed, or by a tool that
// did not default the template; without it either would look like a new
// template and roll every pod.
func SemanticallyEqual(set *appsv1.StatefulSet, rev *appsv1.ControllerRevision) bool {
	return SemanticallyEqualWith(set, rev, Options{})
}

// SemanticallyEqualWith is SemanticallyEqual for revisions that hold what
// opts adds. A revision without claim templates never equals a set whose
// revisions hold them: restoring it would leave the set's templates as
// they are, so any size would match it.
func SemanticallyEqualWith(set *appsv1.StatefulSet, rev *appsv1.ControllerRevision, opts Options) bool {
	if rev == nil || (opts.Claims && !HasClaims(rev)) {
		return false
	}
	want, err := PatchWith(set, opts)
	if err != nil {
		return false
	}
	restored, err := Apply(set, rev)
	if err != nil {
		return false
	}
	defaults.PodTemplate(&restored.Spec.Template)
	// The revision's own overrides, not the set's: a revision that holds
	// other overrides (or none) is another revision.
	held, err := Overrides(rev)
	if err != nil {
		return false
	}
	restoredOpts := opts
	restoredOpts.Overrides = held
	got, err := PatchWith(restored, restoredOpts)
	return err == nil && bytes.Equal(got, want)
}
