package planner

import (
	"fmt"
	"regexp"
	"strconv"
)

// NewestMinor is the newest upstream minor release the planner follows:
// an apps/v1 set behaves as Kubernetes 1.37's controller runs it, unless
// Release says the cluster is older where that matters.
const NewestMinor = 37

// OldestMinor is the oldest minor release Ordinal supports.
const OldestMinor = 34

// Release is the upstream release whose apps/v1 behaviour a set follows
// where releases differ and nothing in the set shows which. Most of it the
// set shows by itself: an API server keeps rollingUpdate.maxUnavailable
// only while its MaxUnavailableStatefulSet gate is on, and admits
// updateStrategy.type Recreate only while its StatefulSetRecreateStrategy
// gate is on (1.37 and later). The rest comes from the API server's
// version, which the controller learns by discovery when it starts; the
// zero Release is the newest one with its default gates.
type Release struct {
	// Minor and Patch are the API server's version 1.Minor.Patch. Minor 0
	// means unknown, taken as NewestMinor.
	Minor, Patch int
	// RecreateGateOff is the controller's StatefulSetRecreateStrategy gate
	// turned off: a set of type Recreate then gets upstream's gate-off
	// Warning (UnknownStrategy) and nothing else, no pod touched and no
	// status written. On (the zero value), the set is recreated as its type
	// asks: the API server admitted the type, so its gate was on.
	RecreateGateOff bool
}

// MaxUnavailableByDefault reports whether the release's API server and
// controller have the MaxUnavailableStatefulSet gate on by default: alpha
// and off in 1.34, beta and on in 1.35.0 to 1.35.3, off again from 1.35.4
// and in 1.36 (after the stall upstream fixed in 1.37), on from 1.37. It
// decides only for a set that cannot show the gate itself: one written
// with type RollingUpdate and no rollingUpdate block, which no API server
// fills in.
func (r Release) MaxUnavailableByDefault() bool {
	switch minor := r.minor(); {
	case minor >= 37:
		return true
	case minor == 35:
		return r.Patch < 4
	default:
		return false
	}
}

func (r Release) minor() int {
	if r.Minor == 0 {
		return NewestMinor
	}
	return r.Minor
}

// String is the release as "1.37" or "1.36.3"; "newest" when unknown.
func (r Release) String() string {
	if r.Minor == 0 {
		return "newest"
	}
	return fmt.Sprintf("1.%d.%d", r.Minor, r.Patch)
}

// gitVersion matches a Kubernetes server's gitVersion: v1.37.2, also with
// a provider's suffix (v1.36.3-gke.1200, v1.35.4+k3s1).
var gitVersion = regexp.MustCompile(`^v?1\.(\d+)\.(\d+)`)

// ParseRelease reads the minor and patch of an API server's gitVersion,
// as discovery reports it. It rejects anything that is not 1.x.y.
func ParseRelease(v string) (Release, error) {
	m := gitVersion.FindStringSubmatch(v)
	if m == nil {
		return Release{}, fmt.Errorf("server version %q is not v1.<minor>.<patch>", v)
	}
	minor, err := strconv.Atoi(m[1])
	if err != nil || minor == 0 {
		return Release{}, fmt.Errorf("server version %q has no usable minor version", v)
	}
	patch, err := strconv.Atoi(m[2])
	if err != nil {
		return Release{}, fmt.Errorf("server version %q has no usable patch version", v)
	}
	return Release{Minor: minor, Patch: patch}, nil
}
