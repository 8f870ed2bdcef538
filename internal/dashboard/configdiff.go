package dashboard

import (
	"context"
	"fmt"
	"io"

	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// configDiff writes, after two revisions' template diff, which data of
// the ConfigMaps and Secrets an extended set's revisions hold changed
// between them, as `ordinal rollout diff` shows it: a ConfigMap's keys
// and values, a Secret's key names and hashes alone. The copies are read
// as the dashboard's user; one it may not read is said so, and the
// template diff is shown all the same.
func (s *Server) configDiff(ctx context.Context, o observed, a, b int64, w io.Writer) {
	if o.Extended == nil || o.Extended.Spec.ConfigRevisions == nil || s.client == nil {
		return
	}
	t := &setops.Target{Client: s.client, Set: o.Set, Extended: o.Extended}
	changes, err := t.ConfigDiff(ctx, o.Revisions, a, b)
	if err != nil {
		fmt.Fprintf(w, "Config not compared: %v\n", err)
		return
	}
	if len(changes) == 0 {
		return
	}
	fmt.Fprintf(w, "Config (ConfigMaps: the values; Secrets: key names and hashes only):\n")
	configrev.Render(w, changes, func(w io.Writer, x, y string) {
		rolloutview.Diff(w, fmt.Sprintf("revision %d", a), fmt.Sprintf("revision %d", b), x, y)
	})
}
