// Package evictionrequests is the local plane's eviction-request
// machinery: what KEP-4563 asks of the evictionrequest-controller and the
// imperative eviction responder, which Kubernetes 1.37 does not ship
// (its API server serves lifecycle.k8s.io/v1alpha1 EvictionRequests and
// Evictions behind the EvictionRequestAPI gate, and validates every
// transition of an Eviction's status, but no controller acts on them).
// The plane runs it when that gate is on; Ordinal's controller for a
// cluster never links it.
//
// For every pod some EvictionRequest asks to evict, it keeps one
// Eviction: owned by the requests (so the garbage collector removes it
// with the last), labelled with each requester and responder name, its
// targetResponders the pod's spec.evictionResponders and the imperative
// evictor (priority 100), highest priority first. It makes one responder
// Active at a time and passes the eviction on when that one completes or
// misses its 20-minute heartbeat deadline; the imperative evictor, when
// its turn comes, calls the pod's eviction subresource, and asks again
// with a backoff while a PodDisruptionBudget refuses. The Eviction ends
// TargetEvicted once the pod is gone or has finished, or Failed when no
// request asks any more (CanceledDueToNoRequesters) or no responder is
// left (NoFurtherResponder), and the requests get its conditions.
//
// Where the KEP leaves a choice, this package makes one, and says so:
// a responder that completes while the pod is terminating stays Active
// until the pod is gone, so that the next responder is not asked to evict
// a pod already going; the imperative evictor's retries back off from 5s
// to at most 2 minutes.
package evictionrequests
