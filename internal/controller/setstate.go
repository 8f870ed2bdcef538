package controller

// setState is what the http hook caller remembers about one set between
// syncs (hooks.go), in the memory it is given, setStates. Every other
// mechanism has a memory of its own (memory.go).
type setState struct {
	// hookCalls are the set's http hook calls under way and made, by pod
	// UID and hook (hooks.go); nil before the first.
	hookCalls map[string]hookCall
}

// setStates is the hook caller's memory, by set key, under its own lock.
type setStates = perSet[setState]

// newSetStates is a hook caller's memory registered with nothing, for a
// caller alone; the controller's is made with newPerSet, registered.
func newSetStates() *setStates { return &setStates{sets: map[string]*setState{}} }
