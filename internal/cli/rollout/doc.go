// Package rollout is `ordinal rollout`: follow, explain, pause, resume,
// restart and roll back StatefulSet rollouts. It reads and writes only
// through the API, keeps all its state in the set object (so pause survives
// any restart), and matches kubectl's rollout behaviour for StatefulSets
// where kubectl has one (status verdict, history, undo, restart). Beside
// it, with the same flags, target syntax and exit codes: `ordinal migrate`
// (between apps/v1 and the extended kind) and `ordinal scale` (remove or
// replace the pods chosen by ordinal in an extended set).
//
// Exit codes (beyond package exit's 0, 1, 2 and 130):
//
//	3  not found: the set, a revision, or history to roll back to
//	4  forbidden or unauthorized
//	5  the API server cannot be reached
//	6  the rollout failed, or status --timeout passed
package rollout
