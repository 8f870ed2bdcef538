package install

import (
	"strings"
	"testing"

	"github.com/ordinal-sh/ordinal/internal/golden"
)

// releases are the chart's renderings under test: its defaults, and
// values that change every template.
var releases = map[string]release{
	"default": {name: "ordinal", namespace: "ordinal-system"},
	"one-namespace": {name: "ordinal", namespace: "ordinal-system", values: `
replicas: 3
watchNamespace: apps
image:
  repository: registry.example.com/platform/ordinal-controller
  tag: v0.1.0
  digest: sha256:98d2f25b9d3777ea2bb1ca2c7719ca3cb70a5268faab2a7f6fdb46347a7846bf
  pullPolicy: Always
imagePullSecrets: [{name: registry-credentials}]
leaderElection: {leaseName: ordinal-apps}
qps: 50.5
burst: 100
workers: 10
statusHoldUnderLoad: 10s
manageAppsV1: false
hooks: {allowCIDRs: [10.0.0.0/8, "fd00::/8"], proxyFromEnvironment: true}
metrics:
  port: 9090
  serviceMonitor: {enabled: true, interval: 15s, labels: {release: prometheus}}
resources:
  requests: {cpu: 250m, memory: 256Mi}
  limits: {cpu: "1", memory: 1Gi}
podAnnotations: {example.com/team: platform}
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector: {matchLabels: {app.kubernetes.io/name: ordinal-controller}}
priorityClassName: system-cluster-critical
`},
	"network-policy": {name: "ordinal", namespace: "ordinal-system", values: `
claimDeletion: {namespaces: [db], quarantine: 10m}
metrics: {certSecret: ordinal-metrics-tls, serviceMonitor: {enabled: true, tlsConfig: {serverName: ordinal-controller-metrics.ordinal-system.svc}}}
networkPolicy:
  enabled: true
  metricsFrom:
  - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
    podSelector: {matchLabels: {app.kubernetes.io/name: prometheus}}
  apiServer: {cidrs: [172.18.0.2/32], ports: [6443]}
  extraEgress:
  - to: [{namespaceSelector: {}, podSelector: {matchLabels: {app: db}}}]
    ports: [{port: 8080, protocol: TCP}]
`},
	"single-replica": {name: "sts", namespace: "ops", values: `
replicas: 1
leaderElection: {enabled: false}
metrics: {service: {enabled: false}}
resources: {}
`},
}

func TestTheChartRendersAsTheGoldenFiles(t *testing.T) {
	for name, r := range releases {
		t.Run(name, func(t *testing.T) {
			golden.Check(t, "chart-"+name+".yaml", r.mustRender(t))
		})
	}
}

// Values that cannot work fail the install with a message naming the value.
func TestTheChartRefusesValuesThatCannotWork(t *testing.T) {
	for _, tc := range []struct {
		name, values, want string
	}{
		{"two replicas without leader election", "leaderElection: {enabled: false}",
			"replicas is 2 with leaderElection.enabled false"},
		{"a misspelt value", "replica: 3", "additional properties 'replica' not allowed"},
		{"a namespace that is no name", "watchNamespace: Apps_Team", "/watchNamespace"},
		{"no replicas", "replicas: 0", "/replicas"},
		{"a digest that is no digest", "image: {digest: latest}", "/image/digest"},
		{"a negative QPS", "qps: -1", "/qps"},
		{"a duration without a unit", "statusHoldUnderLoad: \"30\"", "/statusHoldUnderLoad"},
		{"manageAppsV1 as a string", "manageAppsV1: \"false\"", "/manageAppsV1"},
		{"an allowed hook address without its prefix length", "hooks: {allowCIDRs: [10.0.0.1]}", "/hooks/allowCIDRs/0"},
		{"a ServiceMonitor without its Service", "metrics: {service: {enabled: false}, serviceMonitor: {enabled: true}}",
			"metrics.serviceMonitor.enabled needs metrics.service.enabled"},
		{"an API server address that is no CIDR", "networkPolicy: {apiServer: {cidrs: [kubernetes.default]}}", "/networkPolicy/apiServer/cidrs/0"},
		{"a certificate Secret that is no name", "metrics: {certSecret: My_Secret}", "/metrics/certSecret"},
		{"a quarantine without a unit", "claimDeletion: {quarantine: \"300\"}", "/claimDeletion/quarantine"},
		{"a claim-deletion namespace that is no name", "claimDeletion: {namespaces: [Db]}", "/claimDeletion/namespaces/0"},
		{"claim deletion by a controller of one namespace", "watchNamespace: db\nclaimDeletion: {namespaces: [db]}",
			"claimDeletion.namespaces needs watchNamespace empty"},
		{"a config-secrets namespace that is no name", "configSecrets: {namespaces: [Db]}", "/configSecrets/namespaces/0"},
		{"Secrets of another namespace than a controller of one watches", "watchNamespace: db\nconfigSecrets: {namespaces: [queue]}",
			"configSecrets.namespaces: a controller of one namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := release{name: "ordinal", namespace: "ordinal-system", values: tc.values}.render(t)
			if err == nil {
				t.Fatalf("rendered without an error:\n%s", out)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not say %q:\n%v", tc.want, err)
			}
		})
	}
}

func TestTheChartPassesHelmLint(t *testing.T) {
	out, err := helm(t, "lint", "--strict", repo(t, "charts", "ordinal"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
