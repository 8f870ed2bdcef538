// Package learn derives, from a running set's pods and events, how long
// each of its pods takes to start (created, scheduled, initialized, Ready)
// and to shut down (deleted to gone, from the events of its last
// rollout), so that a rehearsal's simulated pods play the same times. It
// reads only what it is given: no client, no clock.
package learn
