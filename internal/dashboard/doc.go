// Package dashboard serves the live web view of StatefulSet rollouts: every
// set with its progress and health, and for one set the ordinal grid, the
// partition, its claims, revision history and diffs, the planner's
// explanation and its events, kept current by server-sent events fed from
// one set of informers per server. Actions (pause, resume, undo, restart)
// go through the API as the user whose credentials the server holds.
//
// Security model: the server listens on loopback unless told otherwise; a
// random token in the printed URL is required and traded for a session in
// an HttpOnly, SameSite=Strict cookie (a value signed with a key derived
// from the token, never the token itself, since other ports of the host
// see the cookie too); state-changing requests are
// POST-only and need a CSRF header plus a same-origin Origin and
// Sec-Fetch-Site; read-only mode hides and refuses every action. The token
// is never logged.
package dashboard
