// Package dns serves the plane's cluster DNS: the records of Kubernetes'
// DNS-based service discovery schema (1.1.0) for the zone cluster.local,
// read from Services, EndpointSlices and pods — a Service's cluster IPs,
// a headless Service's ready endpoints, each endpoint's hostname (a
// StatefulSet pod's stable name, web-0.nginx.default.svc.cluster.local),
// SRV records for named ports, PTR records, ExternalName CNAMEs and
// verified pod A records. Every answer is computed from the informers'
// caches when it is asked, so a name follows its pod as soon as the
// EndpointSlice does. It answers only for the zone and reverse lookups of
// the addresses it knows; it forwards nothing.
package dns
