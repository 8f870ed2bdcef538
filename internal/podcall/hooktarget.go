package podcall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// hookTarget is where one call goes.
type hookTarget struct {
	// url is the URL requested: the hook's own, or an endpoint's address
	// and port with the service hook's path.
	url string
	// host is the Host header of a service hook, <name>.<namespace>.svc:<port>.
	host string
	// serverName is the name a service hook's certificate must hold,
	// <name>.<namespace>.svc; empty for a URL (its host).
	serverName string
	caBundle   []byte
}

// targetOf is where a call of e goes: a URL as it is, a Service through
// one of its ready endpoints, picked at random, for the Service's port. The
// address policy still judges the endpoint's address at connect time.
func targetOf(ctx context.Context, client kubernetes.Interface, e *planner.HookEndpoint) (hookTarget, error) {
	if e.Service == nil {
		return hookTarget{url: e.URL, caBundle: e.CABundle}, nil
	}
	s := e.Service
	name := s.Name + "." + s.Namespace + ".svc"
	addrs, err := serviceEndpoints(ctx, client, s)
	if err != nil {
		return hookTarget{}, err
	}
	scheme := "http"
	t := hookTarget{host: name + ":" + strconv.Itoa(int(s.Port)), caBundle: e.CABundle}
	if len(e.CABundle) > 0 {
		scheme, t.serverName = "https", name
	}
	t.url = scheme + "://" + addrs[rand.IntN(len(addrs))] + s.Path
	return t, nil
}

// serviceEndpoints lists the ready endpoints (address:port) of the
// Service's port s.Port.
func serviceEndpoints(ctx context.Context, client kubernetes.Interface, s *planner.HookService) ([]string, error) {
	svc, err := client.CoreV1().Services(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, hookFailed(fmt.Sprintf("service %s not found", s.Name), err)
	}
	if err != nil {
		return nil, hookFailed(fmt.Sprintf("service %s could not be read", s.Name), err)
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil, hookFailed(fmt.Sprintf("service %s is ExternalName: a hook calls a Service's endpoints", s.Name), nil)
	}
	var port *corev1.ServicePort
	for i, p := range svc.Spec.Ports {
		if p.Port == s.Port && (p.Protocol == "" || p.Protocol == corev1.ProtocolTCP) {
			port = &svc.Spec.Ports[i]
		}
	}
	if port == nil {
		return nil, hookFailed(fmt.Sprintf("service %s has no TCP port %d", s.Name, s.Port), nil)
	}
	slices, err := client.DiscoveryV1().EndpointSlices(s.Namespace).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + s.Name})
	if err != nil {
		return nil, hookFailed(fmt.Sprintf("endpoints of service %s could not be read", s.Name), err)
	}
	var out []string
	for _, sl := range slices.Items {
		if sl.AddressType != discoveryv1.AddressTypeIPv4 && sl.AddressType != discoveryv1.AddressTypeIPv6 {
			continue
		}
		for _, p := range sl.Ports {
			if p.Port == nil || derefString(p.Name) != port.Name || (p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP) {
				continue
			}
			for _, ep := range sl.Endpoints {
				if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
					continue
				}
				for _, a := range ep.Addresses {
					out = append(out, net.JoinHostPort(a, strconv.Itoa(int(*p.Port))))
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, hookFailed(fmt.Sprintf("service %s has no ready endpoint for port %d", s.Name, s.Port), nil)
	}
	return out, nil
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
