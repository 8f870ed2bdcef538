package rolloutview

import (
	"strings"
	"testing"

	"github.com/ordinal-sh/ordinal/internal/golden"
)

func TestDiff(t *testing.T) {
	a := "metadata:\n  labels:\n    app: web\nspec:\n  containers:\n  - image: app:1\n    name: app\n  dnsPolicy: ClusterFirst\n  restartPolicy: Always\n  schedulerName: default-scheduler\n"
	b := strings.Replace(a, "app:1", "app:2", 1) + "  terminationGracePeriodSeconds: 30\n"
	tests := []struct {
		name, a, b, golden string
	}{
		{"a changed image and an added field make two hunks", a, b, "diff-image.txt"},
		{"equal texts give no output", a, a, "diff-equal.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			Diff(&out, "revision 1", "revision 2", tt.a, tt.b)
			golden.Check(t, tt.golden, out.String())
		})
	}
}
