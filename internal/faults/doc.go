// Package faults injects API faults into a client's HTTP transport, for
// chaos tests: error responses (500, 429, 409), timeouts before and after
// the server acted, slow requests, and watches that fail to open or are
// closed early. Decisions come from a seeded random source, so a run's
// fault pattern is reproducible up to goroutine scheduling.
package faults
