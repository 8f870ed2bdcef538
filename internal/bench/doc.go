// Package bench measures StatefulSet controllers against each other on fresh
// embedded control planes: each (scenario, contender) pair gets its own
// `ordinal bench-plane` process and its own contender process, so wall time,
// API writes, CPU-seconds and peak RSS compare fairly.
package bench
