package dns

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Index names of the store's caches.
const (
	byServiceName = "service"    // EndpointSlices by "namespace/service"
	byAddress     = "address"    // EndpointSlices by endpoint address
	byClusterIP   = "cluster-ip" // Services by cluster IP
)

// podLookupTimeout bounds the API read behind a pod record.
const podLookupTimeout = 2 * time.Second

// store reads the cluster's Services and EndpointSlices from informer
// caches, and pods from the API on demand (pod records are rare; a pod
// cache would hold every pod of the cluster for them).
type store struct {
	client   kubernetes.Interface
	services cache.Indexer
	slices   cache.Indexer
}

func newStore(client kubernetes.Interface, f informers.SharedInformerFactory) (*store, error) {
	svc := f.Core().V1().Services().Informer()
	if err := svc.AddIndexers(cache.Indexers{byClusterIP: clusterIPs}); err != nil {
		return nil, fmt.Errorf("cluster DNS: indexing services: %w", err)
	}
	es := f.Discovery().V1().EndpointSlices().Informer()
	if err := es.AddIndexers(cache.Indexers{byServiceName: sliceService, byAddress: sliceAddresses}); err != nil {
		return nil, fmt.Errorf("cluster DNS: indexing endpoint slices: %w", err)
	}
	return &store{client: client, services: svc.GetIndexer(), slices: es.GetIndexer()}, nil
}

func clusterIPs(obj any) ([]string, error) {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, nil
	}
	var out []string
	for _, ip := range svc.Spec.ClusterIPs {
		if addr, err := netip.ParseAddr(ip); err == nil {
			out = append(out, addr.String())
		}
	}
	return out, nil
}

func sliceService(obj any) ([]string, error) {
	es, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok || es.Labels[discoveryv1.LabelServiceName] == "" {
		return nil, nil
	}
	return []string{es.Namespace + "/" + es.Labels[discoveryv1.LabelServiceName]}, nil
}

func sliceAddresses(obj any) ([]string, error) {
	es, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return nil, nil
	}
	var out []string
	for _, ep := range es.Endpoints {
		for _, a := range ep.Addresses {
			if addr, err := netip.ParseAddr(a); err == nil {
				out = append(out, addr.String())
			}
		}
	}
	return out, nil
}

// service is the named Service, or nil.
func (s *store) service(namespace, name string) *corev1.Service {
	obj, ok, err := s.services.GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil
	}
	return obj.(*corev1.Service)
}

// namespaceHasServices says whether a Service exists in namespace.
func (s *store) namespaceHasServices(namespace string) bool {
	objs, err := s.services.ByIndex(cache.NamespaceIndex, namespace)
	return err == nil && len(objs) > 0
}

// endpoint is one ready address of a Service, with its hostname (the
// endpoint's own, else one made from its address).
type endpoint struct {
	host string
	addr netip.Addr
}

// port is a named port of a Service or of its EndpointSlices.
type port struct {
	name, proto string
	number      int32
}

// endpoints are the ready addresses of the Service, each once, and the
// named ports of its EndpointSlices.
func (s *store) endpoints(namespace, name string) ([]endpoint, []port) {
	objs, err := s.slices.ByIndex(byServiceName, namespace+"/"+name)
	if err != nil {
		return nil, nil
	}
	var eps []endpoint
	var ports []port
	seen, seenPort := map[endpoint]bool{}, map[port]bool{}
	for _, obj := range objs {
		es := obj.(*discoveryv1.EndpointSlice)
		for _, p := range es.Ports {
			if p.Name == nil || *p.Name == "" || p.Port == nil {
				continue
			}
			pt := port{name: *p.Name, proto: protocol(p.Protocol), number: *p.Port}
			if !seenPort[pt] {
				seenPort[pt] = true
				ports = append(ports, pt)
			}
		}
		for _, ep := range es.Endpoints {
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				continue
			}
			for _, a := range ep.Addresses {
				addr, err := netip.ParseAddr(a)
				if err != nil {
					continue
				}
				e := endpoint{host: hostOf(ep, addr), addr: addr}
				if !seen[e] {
					seen[e] = true
					eps = append(eps, e)
				}
			}
		}
	}
	return eps, ports
}

// hostOf is an endpoint's hostname: its own, else its address with dashes
// for dots and colons, as other cluster DNS servers name it.
func hostOf(ep discoveryv1.Endpoint, addr netip.Addr) string {
	if ep.Hostname != nil && *ep.Hostname != "" {
		return strings.ToLower(*ep.Hostname)
	}
	return dashed(addr)
}

func dashed(addr netip.Addr) string {
	return strings.NewReplacer(".", "-", ":", "-").Replace(addr.String())
}

func protocol(p *corev1.Protocol) string {
	if p == nil {
		return "tcp"
	}
	return strings.ToLower(string(*p))
}

// servicesAt are the Services whose cluster IP is addr.
func (s *store) servicesAt(addr netip.Addr) []*corev1.Service {
	objs, err := s.services.ByIndex(byClusterIP, addr.String())
	if err != nil {
		return nil
	}
	out := make([]*corev1.Service, 0, len(objs))
	for _, obj := range objs {
		out = append(out, obj.(*corev1.Service))
	}
	return out
}

// endpointNamesAt are the names "host.service.namespace" of the ready
// endpoints of headless Services at addr.
func (s *store) endpointNamesAt(addr netip.Addr) []string {
	objs, err := s.slices.ByIndex(byAddress, addr.String())
	if err != nil {
		return nil
	}
	var out []string
	for _, obj := range objs {
		es := obj.(*discoveryv1.EndpointSlice)
		svc := s.service(es.Namespace, es.Labels[discoveryv1.LabelServiceName])
		if svc == nil || !headless(svc) {
			continue
		}
		for _, ep := range es.Endpoints {
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				continue
			}
			for _, a := range ep.Addresses {
				if got, err := netip.ParseAddr(a); err == nil && got == addr {
					out = append(out, hostOf(ep, addr)+"."+svc.Name+"."+svc.Namespace)
				}
			}
		}
	}
	return out
}

// podAt says whether a pod in namespace has addr.
func (s *store) podAt(ctx context.Context, namespace string, addr netip.Addr) bool {
	ctx, cancel := context.WithTimeout(ctx, podLookupTimeout)
	defer cancel()
	list, err := s.client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("status.podIP", addr.String()).String(),
	})
	if err != nil {
		return false
	}
	for _, p := range list.Items {
		for _, ip := range p.Status.PodIPs {
			if got, err := netip.ParseAddr(ip.IP); err == nil && got == addr && p.DeletionTimestamp == nil {
				return true
			}
		}
	}
	return false
}

func headless(svc *corev1.Service) bool {
	return svc.Spec.Type != corev1.ServiceTypeExternalName && svc.Spec.ClusterIP == corev1.ClusterIPNone
}
