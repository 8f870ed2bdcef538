package dns

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
)

// ServeDNS answers one query: authoritatively for the zone and for
// reverse lookups of the addresses it knows, REFUSED for any other name
// (nothing is forwarded).
func (s *Server) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	if len(r.Question) != 1 || r.Opcode != dns.OpcodeQuery {
		m.SetRcode(r, dns.RcodeFormatError)
		_ = w.WriteMsg(m)
		return
	}
	q := r.Question[0]
	a := s.answer(context.Background(), q)
	m.Rcode = a.rcode
	m.Answer, m.Extra = a.answer, a.extra
	if a.rcode == dns.RcodeNameError || a.rcode == dns.RcodeSuccess && len(a.answer) == 0 {
		m.Ns = []dns.RR{s.soa()}
	}
	if a.rcode == dns.RcodeRefused {
		m.Authoritative = false
	}
	size := dns.MinMsgSize
	if o := r.IsEdns0(); o != nil {
		size = int(o.UDPSize())
		m.SetEdns0(o.UDPSize(), false)
	}
	if _, tcp := w.RemoteAddr().(*net.TCPAddr); tcp {
		size = dns.MaxMsgSize
	}
	m.Truncate(size)
	_ = w.WriteMsg(m)
}

// reply is an answer in the making.
type reply struct {
	rcode         int
	answer, extra []dns.RR
}

var (
	nxdomain = reply{rcode: dns.RcodeNameError}
	nodata   = reply{rcode: dns.RcodeSuccess}
	refused  = reply{rcode: dns.RcodeRefused}
)

// answer resolves q. Owner names in the answer keep the question's case.
func (s *Server) answer(ctx context.Context, q dns.Question) reply {
	name := strings.ToLower(q.Name)
	if q.Qclass != dns.ClassINET && q.Qclass != dns.ClassANY {
		return refused
	}
	if strings.HasSuffix(name, ".in-addr.arpa.") || strings.HasSuffix(name, ".ip6.arpa.") {
		return s.reverse(q)
	}
	if name == s.zone {
		return s.apex(q)
	}
	if !strings.HasSuffix(name, "."+s.zone) {
		return refused
	}
	labels := dns.SplitDomainName(strings.TrimSuffix(name, "."+s.zone))
	n := len(labels)
	switch {
	case n == 1 && labels[0] == "dns-version":
		return s.only(q, dns.TypeTXT, &dns.TXT{Hdr: s.hdr(q.Name, dns.TypeTXT), Txt: []string{SchemaVersion}})
	case n == 1 && (labels[0] == "svc" || labels[0] == "pod"):
		return nodata
	case n == 2 && labels[1] == "svc":
		if s.data.namespaceHasServices(labels[0]) {
			return nodata
		}
		return nxdomain
	case n == 3 && labels[2] == "svc":
		return s.serviceRecords(q, labels[1], labels[0])
	case n == 4 && labels[3] == "svc":
		return s.hostRecords(q, labels[2], labels[1], labels[0])
	case n == 5 && labels[4] == "svc" && strings.HasPrefix(labels[0], "_") && strings.HasPrefix(labels[1], "_"):
		return s.srvRecords(q, labels[3], labels[2], labels[0][1:], labels[1][1:])
	case n == 3 && labels[2] == "pod":
		return s.podRecords(ctx, q, labels[1], labels[0])
	}
	return nxdomain
}

func (s *Server) hdr(name string, typ uint16) dns.RR_Header {
	return dns.RR_Header{Name: name, Rrtype: typ, Class: dns.ClassINET, Ttl: s.ttl}
}

// soa is the zone's SOA record, also the authority of negative answers.
func (s *Server) soa() dns.RR {
	return &dns.SOA{
		Hdr: s.hdr(s.zone, dns.TypeSOA), Ns: "ns.dns." + s.zone, Mbox: "hostmaster." + s.zone,
		Serial: 1, Refresh: 7200, Retry: 1800, Expire: 86400, Minttl: s.ttl,
	}
}

func (s *Server) apex(q dns.Question) reply {
	switch q.Qtype {
	case dns.TypeSOA, dns.TypeANY:
		return reply{answer: []dns.RR{s.soa()}}
	case dns.TypeNS:
		return reply{answer: []dns.RR{&dns.NS{Hdr: s.hdr(q.Name, dns.TypeNS), Ns: "ns.dns." + s.zone}}}
	}
	return nodata
}

// only is rr when q asks for its type (or any), else an empty answer: the
// name exists either way.
func (s *Server) only(q dns.Question, typ uint16, rr dns.RR) reply {
	if q.Qtype == typ || q.Qtype == dns.TypeANY {
		return reply{answer: []dns.RR{rr}}
	}
	return nodata
}

// addressRecords are A and AAAA records of addrs under name, those q asks
// for.
func (s *Server) addressRecords(q dns.Question, name string, addrs []netip.Addr) []dns.RR {
	var out []dns.RR
	for _, a := range addrs {
		switch {
		case a.Is4() && (q.Qtype == dns.TypeA || q.Qtype == dns.TypeANY):
			out = append(out, &dns.A{Hdr: s.hdr(name, dns.TypeA), A: a.AsSlice()})
		case a.Is6() && !a.Is4In6() && (q.Qtype == dns.TypeAAAA || q.Qtype == dns.TypeANY):
			out = append(out, &dns.AAAA{Hdr: s.hdr(name, dns.TypeAAAA), AAAA: a.AsSlice()})
		}
	}
	return out
}

// serviceRecords are the records of <service>.<ns>.svc: its cluster IPs,
// a headless Service's ready endpoints (none is an empty answer: the
// Service exists), or an ExternalName's CNAME.
func (s *Server) serviceRecords(q dns.Question, namespace, name string) reply {
	svc := s.data.service(namespace, name)
	if svc == nil {
		return nxdomain
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		target := dns.Fqdn(strings.ToLower(svc.Spec.ExternalName))
		if q.Qtype == dns.TypeSRV || q.Qtype == dns.TypeTXT {
			return nodata
		}
		return reply{answer: []dns.RR{&dns.CNAME{Hdr: s.hdr(q.Name, dns.TypeCNAME), Target: target}}}
	}
	var addrs []netip.Addr
	if headless(svc) {
		eps, _ := s.data.endpoints(namespace, name)
		for _, e := range eps {
			addrs = append(addrs, e.addr)
		}
	} else {
		for _, ip := range svc.Spec.ClusterIPs {
			if a, err := netip.ParseAddr(ip); err == nil {
				addrs = append(addrs, a)
			}
		}
	}
	return reply{answer: s.addressRecords(q, q.Name, addrs)}
}

// hostRecords are the records of <host>.<service>.<ns>.svc: the ready
// endpoints of a headless Service with that hostname.
func (s *Server) hostRecords(q dns.Question, namespace, service, host string) reply {
	svc := s.data.service(namespace, service)
	if svc == nil || !headless(svc) {
		return nxdomain
	}
	eps, _ := s.data.endpoints(namespace, service)
	var addrs []netip.Addr
	for _, e := range eps {
		if e.host == host {
			addrs = append(addrs, e.addr)
		}
	}
	if len(addrs) == 0 {
		return nxdomain
	}
	return reply{answer: s.addressRecords(q, q.Name, addrs)}
}

// srvRecords are the SRV records of _<port>._<proto>.<service>.<ns>.svc:
// for a Service with a cluster IP, the port on the Service's name; for a
// headless one, one per ready endpoint, on the endpoint's name, with its
// address records in the additional section.
func (s *Server) srvRecords(q dns.Question, namespace, service, portName, proto string) reply {
	svc := s.data.service(namespace, service)
	if svc == nil || svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nxdomain
	}
	base := service + "." + namespace + ".svc." + s.zone
	var out reply
	if !headless(svc) {
		for _, p := range svc.Spec.Ports {
			if strings.EqualFold(p.Name, portName) && strings.EqualFold(string(p.Protocol), proto) {
				out.answer = append(out.answer, s.srv(q, p.Port, base))
			}
		}
	} else {
		eps, ports := s.data.endpoints(namespace, service)
		for _, p := range ports {
			if !strings.EqualFold(p.name, portName) || p.proto != proto {
				continue
			}
			for _, e := range eps {
				target := e.host + "." + base
				out.answer = append(out.answer, s.srv(q, p.number, target))
				out.extra = append(out.extra, s.addressRecords(dns.Question{Qtype: dns.TypeANY}, target, []netip.Addr{e.addr})...)
			}
		}
	}
	if len(out.answer) == 0 {
		return nxdomain
	}
	if q.Qtype != dns.TypeSRV && q.Qtype != dns.TypeANY {
		return nodata
	}
	return out
}

func (s *Server) srv(q dns.Question, port int32, target string) dns.RR {
	return &dns.SRV{Hdr: s.hdr(q.Name, dns.TypeSRV), Priority: 0, Weight: 100, Port: uint16(port), Target: target}
}

// podRecords are the records of <a-b-c-d>.<ns>.pod: the address, if a
// pod in the namespace has it.
func (s *Server) podRecords(ctx context.Context, q dns.Question, namespace, dashedIP string) reply {
	addr, ok := undash(dashedIP)
	if !ok || !s.data.podAt(ctx, namespace, addr) {
		return nxdomain
	}
	return reply{answer: s.addressRecords(q, q.Name, []netip.Addr{addr})}
}

// undash reads an address written with dashes: 10-0-0-1, or fd00--1.
func undash(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(strings.ReplaceAll(s, "-", ".")); err == nil && a.Is4() {
		return a, true
	}
	if a, err := netip.ParseAddr(strings.ReplaceAll(s, "-", ":")); err == nil && a.Is6() {
		return a, true
	}
	return netip.Addr{}, false
}

// reverse answers a PTR query for a Service's cluster IP or a headless
// Service's endpoint.
func (s *Server) reverse(q dns.Question) reply {
	addr, ok := fromArpa(strings.ToLower(q.Name))
	if !ok {
		return nxdomain
	}
	var names []string
	for _, svc := range s.data.servicesAt(addr) {
		names = append(names, svc.Name+"."+svc.Namespace)
	}
	names = append(names, s.data.endpointNamesAt(addr)...)
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return nxdomain
	}
	if q.Qtype != dns.TypePTR && q.Qtype != dns.TypeANY {
		return nodata
	}
	var out reply
	for _, n := range names {
		out.answer = append(out.answer, &dns.PTR{Hdr: s.hdr(q.Name, dns.TypePTR), Ptr: n + ".svc." + s.zone})
	}
	return out
}

// fromArpa reads the address of a reverse name: 4.3.2.1.in-addr.arpa.
// or the 32 nibbles of an ip6.arpa. name.
func fromArpa(name string) (netip.Addr, bool) {
	if rest, ok := strings.CutSuffix(name, ".in-addr.arpa."); ok {
		parts := strings.Split(rest, ".")
		if len(parts) != 4 {
			return netip.Addr{}, false
		}
		var b [4]byte
		for i, p := range parts {
			n, err := strconv.ParseUint(p, 10, 8)
			if err != nil {
				return netip.Addr{}, false
			}
			b[3-i] = byte(n)
		}
		return netip.AddrFrom4(b), true
	}
	rest, ok := strings.CutSuffix(name, ".ip6.arpa.")
	nibbles := strings.Split(rest, ".")
	if !ok || len(nibbles) != 32 {
		return netip.Addr{}, false
	}
	var b [16]byte
	for i, n := range nibbles {
		v, err := strconv.ParseUint(n, 16, 8)
		if err != nil || len(n) != 1 {
			return netip.Addr{}, false
		}
		pos := 31 - i
		if pos%2 == 0 {
			b[pos/2] |= byte(v) << 4
		} else {
			b[pos/2] |= byte(v)
		}
	}
	return netip.AddrFrom16(b), true
}
