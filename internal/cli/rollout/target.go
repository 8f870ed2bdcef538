package rollout

import (
	"context"
	"fmt"
	"strings"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// setKinds are the spellings kubectl accepts for a StatefulSet.
var setKinds = map[string]bool{
	"statefulset": true, "statefulsets": true, "sts": true,
	"statefulset.apps": true, "statefulsets.apps": true,
}

// setName accepts "web" or "statefulset/web" (and kubectl's other
// spellings); any other kind is a usage error.
func setName(arg string) (string, error) {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok {
		name, kind = arg, "statefulset"
	}
	switch {
	case !setKinds[strings.ToLower(kind)]:
		return "", exit.Usage(fmt.Errorf("%s: only statefulsets are supported", arg))
	case name == "" || strings.Contains(name, "/"):
		return "", exit.Usage(fmt.Errorf("%q is not a statefulset name", arg))
	}
	return name, nil
}

// load parses the SET argument, connects and reads the set.
func (o *options) load(ctx context.Context, arg string) (*setops.Target, error) {
	name, err := setName(arg)
	if err != nil {
		return nil, err
	}
	client, ns, err := o.client()
	if err != nil {
		return nil, err
	}
	t, err := setops.Load(ctx, client, ns, name)
	if err != nil {
		return nil, classify(err)
	}
	return t, nil
}
