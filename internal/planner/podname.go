package planner

import (
	"strconv"
	"strings"
)

// SplitPodName splits a pod name <set>-<ordinal> as upstream does when it
// does not know the set: the set name is everything before the last dash,
// which must be followed by digits only that fit an int32 (leading zeros
// included, as upstream accepts them). Indexes and event handlers use it to
// find the set a pod or claim name belongs to; to check a pod of a known
// set, ParseOrdinal decides.
func SplitPodName(name string) (set string, ordinal int32, ok bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || !allDigits(name[i+1:]) {
		return "", 0, false
	}
	n, err := strconv.ParseInt(name[i+1:], 10, 32)
	if err != nil {
		return "", 0, false
	}
	return name[:i], int32(n), true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
