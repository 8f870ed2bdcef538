package v1alpha1_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func TestParseReserveOrdinals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []intstr.IntOrString
		want    []v1alpha1.OrdinalRange
		wantErr string
	}{
		{name: "integers and ranges are read in order", in: []intstr.IntOrString{intstr.FromInt32(3), intstr.FromString("5-7"), intstr.FromString("9")},
			want: []v1alpha1.OrdinalRange{{Low: 3, High: 3}, {Low: 5, High: 7}, {Low: 9, High: 9}}},
		{name: "a range of one ordinal is fine", in: []intstr.IntOrString{intstr.FromString("4-4")}, want: []v1alpha1.OrdinalRange{{Low: 4, High: 4}}},
		{name: "a negative integer is refused", in: []intstr.IntOrString{intstr.FromInt32(-1), intstr.FromInt32(2)},
			want: []v1alpha1.OrdinalRange{{Low: 2, High: 2}}, wantErr: "spec.reserveOrdinals: -1 is negative"},
		{name: "a range whose low end is above its high end is refused", in: []intstr.IntOrString{intstr.FromString("7-5")},
			want: []v1alpha1.OrdinalRange{}, wantErr: `spec.reserveOrdinals: "7-5": the range's low end is above its high end`},
		{name: "words, signs and open ranges are refused", in: []intstr.IntOrString{intstr.FromString("a"), intstr.FromString("-3"), intstr.FromString("5-"), intstr.FromString("2147483648")},
			want: []v1alpha1.OrdinalRange{}, wantErr: "spec.reserveOrdinals: \"a\" is not an ordinal or a range \"low-high\" of ordinals\n" +
				"spec.reserveOrdinals: \"-3\" is not an ordinal or a range \"low-high\" of ordinals\n" +
				"spec.reserveOrdinals: \"5-\" is not an ordinal or a range \"low-high\" of ordinals\n" +
				"spec.reserveOrdinals: \"2147483648\" is not an ordinal or a range \"low-high\" of ordinals"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := v1alpha1.ParseReserveOrdinals(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ranges (-want +got):\n%s", diff)
			}
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tc.wantErr {
				t.Errorf("error %q, want %q", gotErr, tc.wantErr)
			}
		})
	}
}

func TestParseOverrideOrdinalsNamesItsField(t *testing.T) {
	got, err := v1alpha1.ParseOverrideOrdinals("spec.overrides[big].ordinals", []intstr.IntOrString{intstr.FromInt32(0), intstr.FromString("2-4"), intstr.FromString("x")})
	if diff := cmp.Diff([]v1alpha1.OrdinalRange{{Low: 0, High: 0}, {Low: 2, High: 4}}, got); diff != "" {
		t.Errorf("ranges (-want +got):\n%s", diff)
	}
	if want := `spec.overrides[big].ordinals: "x" is not an ordinal or a range "low-high" of ordinals`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestParseOfflineOrdinalsNamesItsField(t *testing.T) {
	got, err := v1alpha1.ParseOfflineOrdinals([]intstr.IntOrString{intstr.FromString("1-2"), intstr.FromInt32(-1)})
	if diff := cmp.Diff([]v1alpha1.OrdinalRange{{Low: 1, High: 2}}, got); diff != "" {
		t.Errorf("ranges (-want +got):\n%s", diff)
	}
	if want := "spec.offlineOrdinals: -1 is negative"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
