// Package rehearse implements `ordinal rehearse`: a running set's rollout
// of a proposed change, played on a copy of its shape in a fresh local
// plane under upstream's controller and Ordinal's, and forecast. Its
// steps are packages of their own: shape (read the source with get and
// list only, copy it, change it), learn (the pods' timings), play (the
// plane and the runs) and forecast (the result and its pictures).
package rehearse
