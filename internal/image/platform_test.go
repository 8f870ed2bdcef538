package image_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ordinal-sh/ordinal/internal/image"
)

func TestPlatformListsAreParsedOrRefusedByName(t *testing.T) {
	amd, arm := image.Platform{OS: "linux", Arch: "amd64"}, image.Platform{OS: "linux", Arch: "arm64"}
	for _, tc := range []struct {
		name, in string
		want     []image.Platform
		wantErr  bool
	}{
		{name: "one platform", in: "linux/amd64", want: []image.Platform{amd}},
		{name: "two in the order given", in: "linux/arm64, linux/amd64", want: []image.Platform{arm, amd}},
		{name: "another system", in: "windows/amd64", wantErr: true},
		{name: "an architecture without a pinned baseline", in: "linux/arm", wantErr: true},
		{name: "no slash", in: "amd64", wantErr: true},
		{name: "the same one twice", in: "linux/amd64,linux/amd64", wantErr: true},
		{name: "empty", in: "", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := image.ParsePlatforms(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParsePlatforms(%q) error %v, want error %v", tc.in, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
