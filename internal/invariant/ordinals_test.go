package invariant

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// spanSet is an apps/v1 set with the given replicas (nil: unset) and start
// ordinal (nil: no spec.ordinals).
func spanSet(replicas, start *int32) *appsv1.StatefulSet {
	set := &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: replicas}}
	if start != nil {
		set.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: *start}
	}
	return set
}

func rg(low, high int32) v1alpha1.OrdinalRange { return v1alpha1.OrdinalRange{Low: low, High: high} }

func TestOrdinalsFollowTheSpec(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replicas *int32
		start    *int32
		reserved []v1alpha1.OrdinalRange
		want     []int32
	}{
		{name: "replicas unset is one pod at ordinal 0", want: []int32{0}},
		{name: "three replicas are ordinals 0 to 2", replicas: ptr.To[int32](3), want: []int32{0, 1, 2}},
		{name: "no replicas are no ordinals", replicas: ptr.To[int32](0)},
		{name: "a start ordinal of 5 shifts the range to 5..7", replicas: ptr.To[int32](3), start: ptr.To[int32](5), want: []int32{5, 6, 7}},
		{name: "reserved ordinals are skipped and replicas still counts pods", replicas: ptr.To[int32](3),
			reserved: []v1alpha1.OrdinalRange{rg(1, 1), rg(5, 7)}, want: []int32{0, 2, 3}},
		{name: "more replicas go past a reserved range", replicas: ptr.To[int32](5),
			reserved: []v1alpha1.OrdinalRange{rg(1, 1), rg(5, 7)}, want: []int32{0, 2, 3, 4, 8}},
		{name: "reservations below the start ordinal change nothing", replicas: ptr.To[int32](2), start: ptr.To[int32](5),
			reserved: []v1alpha1.OrdinalRange{rg(0, 4)}, want: []int32{5, 6}},
		{name: "a reserved start ordinal moves the first pod up", replicas: ptr.To[int32](3), start: ptr.To[int32](5),
			reserved: []v1alpha1.OrdinalRange{rg(5, 5), rg(7, 8)}, want: []int32{6, 9, 10}},
		{name: "overlapping and unsorted ranges are skipped as one", replicas: ptr.To[int32](3),
			reserved: []v1alpha1.OrdinalRange{rg(3, 6), rg(2, 4)}, want: []int32{0, 1, 7}},
		{name: "the range stops at the largest ordinal a pod name can carry", replicas: ptr.To[int32](3), start: ptr.To[int32](math.MaxInt32 - 1),
			want: []int32{math.MaxInt32 - 1, math.MaxInt32}},
		{name: "a reservation up to the largest ordinal leaves only the ordinals below it", replicas: ptr.To[int32](3),
			reserved: []v1alpha1.OrdinalRange{rg(1, math.MaxInt32)}, want: []int32{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Ordinals(spanSet(tc.replicas, tc.start), tc.reserved)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ordinals (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReservedOrdinalsReadEachEntry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		entry intstr.IntOrString
		want  []v1alpha1.OrdinalRange
	}{
		{"an integer is one ordinal", intstr.FromInt32(1), []v1alpha1.OrdinalRange{rg(1, 1)}},
		{"a string of digits is one ordinal", intstr.FromString("5"), []v1alpha1.OrdinalRange{rg(5, 5)}},
		{"a range includes both ends", intstr.FromString("5-7"), []v1alpha1.OrdinalRange{rg(5, 7)}},
		{"a range may hold one ordinal", intstr.FromString("0-0"), []v1alpha1.OrdinalRange{rg(0, 0)}},
		{"the largest int32 is an ordinal", intstr.FromString("2147483647"), []v1alpha1.OrdinalRange{rg(math.MaxInt32, math.MaxInt32)}},
		{"a negative integer is skipped", intstr.FromInt32(-1), nil},
		{"a range with its ends swapped is skipped", intstr.FromString("7-5"), nil},
		{"an empty string is skipped", intstr.FromString(""), nil},
		{"a range without a high end is skipped", intstr.FromString("5-"), nil},
		{"a signed number is skipped", intstr.FromString("-5"), nil},
		{"a plus sign is skipped", intstr.FromString("+5"), nil},
		{"three ends are skipped", intstr.FromString("1-2-3"), nil},
		{"a space is skipped", intstr.FromString(" 5"), nil},
		{"an ordinal past int32 is skipped", intstr.FromString("2147483648"), nil},
		{"a word is skipped", intstr.FromString("one"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := &v1alpha1.StatefulSet{Spec: v1alpha1.StatefulSetSpec{ReserveOrdinals: []intstr.IntOrString{tc.entry}}}
			if diff := cmp.Diff(tc.want, ReservedOrdinals(set), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("reserved ordinals of %v (-want +got):\n%s", tc.entry, diff)
			}
		})
	}
	t.Run("an entry that does not parse leaves the others in force", func(t *testing.T) {
		set := &v1alpha1.StatefulSet{Spec: v1alpha1.StatefulSetSpec{ReserveOrdinals: []intstr.IntOrString{
			intstr.FromString("x"), intstr.FromInt32(3), intstr.FromString("8-9")}}}
		if diff := cmp.Diff([]v1alpha1.OrdinalRange{rg(3, 3), rg(8, 9)}, ReservedOrdinals(set)); diff != "" {
			t.Errorf("reserved ordinals (-want +got):\n%s", diff)
		}
	})
}

// An extended set's ordinals are its apps/v1 view's, less those it
// reserves: with start 2, 3 replicas and [3, "5-6"] reserved, 2, 4 and 7.
func TestAnExtendedSetsOrdinalsSkipItsReservations(t *testing.T) {
	set := &v1alpha1.StatefulSet{Spec: v1alpha1.StatefulSetSpec{Replicas: ptr.To[int32](3),
		Ordinals:        &v1alpha1.StatefulSetOrdinals{Start: 2},
		ReserveOrdinals: []intstr.IntOrString{intstr.FromInt32(3), intstr.FromString("5-6")}}}
	if diff := cmp.Diff([]int32{2, 4, 7}, Ordinals(ExtendedView(set), ReservedOrdinals(set))); diff != "" {
		t.Errorf("ordinals (-want +got):\n%s", diff)
	}
}

func TestFirstUpdatedOrdinalCountsThePartitionFromTheStart(t *testing.T) {
	partitioned := func(start *int32, partition int32) *appsv1.StatefulSet {
		set := spanSet(ptr.To[int32](3), start)
		set.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: &partition}
		return set
	}
	for _, tc := range []struct {
		name string
		set  *appsv1.StatefulSet
		want int64
	}{
		{"no rolling update settings update every ordinal", spanSet(ptr.To[int32](3), nil), 0},
		{"a start ordinal alone is the first updated", spanSet(ptr.To[int32](3), ptr.To[int32](5)), 5},
		{"partition 2 from 0 keeps ordinals 0 and 1", partitioned(nil, 2), 2},
		{"partition 2 from start 5 keeps ordinals 5 and 6", partitioned(ptr.To[int32](5), 2), 7},
		{"the largest start and partition do not overflow", partitioned(ptr.To[int32](math.MaxInt32), math.MaxInt32), 2 * math.MaxInt32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FirstUpdatedOrdinal(tc.set); got != tc.want {
				t.Errorf("first updated ordinal %d, want %d", got, tc.want)
			}
		})
	}
}
