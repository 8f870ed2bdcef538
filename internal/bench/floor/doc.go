// Package floor is the benchmark's physical limit: a plain client that
// issues only the writes a StatefulSet change cannot avoid — one claim and
// one pod per new replica, one delete and one create per replaced pod, one
// delete per removed replica — while honouring the set's ordering and
// maxUnavailable. It writes no status, revisions or events.
package floor
