package nodes

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// The simulated nodes are spread over the zones round robin, so a user
// can try a rollout that goes zone by zone; zones 0 gives no zone label.
func TestTheNodesAreSpreadOverTheZones(t *testing.T) {
	for _, tt := range []struct {
		zones int
		want  []string
	}{
		{zones: 3, want: []string{"zone-0", "zone-1", "zone-2", "zone-0"}},
		{zones: 2, want: []string{"zone-0", "zone-1", "zone-0", "zone-1"}},
		{zones: 0, want: []string{"", "", "", ""}},
	} {
		c := fake.NewClientset()
		if err := registerNodes(context.Background(), c, 4, 0, tt.zones); err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := range 4 {
			n, err := c.CoreV1().Nodes().Get(context.Background(), NodeName(i), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			zone, ok := n.Labels[ZoneLabel]
			if ok && zone == "" {
				t.Errorf("%s has an empty zone label", n.Name)
			}
			got = append(got, zone)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%d zones: nodes in %q, want %q", tt.zones, got, tt.want)
		}
	}
}
