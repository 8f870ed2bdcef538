// Package podcall makes every call the controller makes to its pods and
// to the endpoints their sets name: the http lifecycle hooks a plan's
// CallHook actions ask for, and the extended kind's role probe. The
// controller reaches it through one interface, Caller; the calls' address
// policy, connections, caller tokens, limits and memory live here, apart
// from the reconcile core.
package podcall
