package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes"
)

// writeKey is one apiserver_request_total series of a counted write.
type writeKey struct {
	Verb     string
	Resource string // "pods", "statefulsets/status", …
	Code     int
}

// writeVerbs are the mutating verbs of apiserver_request_total.
var writeVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "DELETE": true, "APPLY": true, "DELETECOLLECTION": true}

// counted reports whether a write is one only the contender makes while a
// scenario is measured. Left out: statefulsets (spec), which the harness
// writes; pods/binding (scheduler) and pods/status (node agent); claim
// updates and patches (PUT, PATCH, APPLY), which the PV binder and the
// provisioner make, so a contender's own claim patches (the retention
// policy's owner references; none under the default Retain policy, which
// every scenario uses) are not counted either. An eviction (an extended
// set that respects disruption budgets) is the contender's delete of a
// pod, and counts as one. ConfigMap creates and patches are the
// controller's copies and live ConfigMaps (configRevisions); the
// harness's edits of a ConfigMap are PUTs, not counted. A
// PodDisruptionBudget's spec is written in a measured window only by an
// extended set that keeps its own (spec.disruptionBudget); the disruption
// controller writes its status.
func counted(verb, resource string) bool {
	switch resource {
	case "pods", "statefulsets/status", "controllerrevisions", "poddisruptionbudgets":
		return true
	case "pods/eviction":
		return verb == "POST"
	case "persistentvolumeclaims":
		return verb == "POST" || verb == "DELETE"
	case "configmaps":
		// The controller's copies and live ConfigMaps (create, patch);
		// the harness's own edit is a PUT.
		return verb == "POST" || verb == "PATCH"
	}
	return false
}

// scrapeWrites reads the API server's request counters.
func scrapeWrites(ctx context.Context, c kubernetes.Interface) (map[writeKey]int64, error) {
	raw, err := c.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("scraping /metrics: %w", err)
	}
	return parseWrites(strings.NewReader(string(raw)))
}

// parseWrites extracts the counted write series from Prometheus text.
func parseWrites(r io.Reader) (map[writeKey]int64, error) {
	out := map[writeKey]int64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		end := strings.LastIndexByte(line, '}')
		if end < 0 {
			continue
		}
		labels := parseLabels(line[len("apiserver_request_total{"):end])
		if !writeVerbs[labels["verb"]] {
			continue
		}
		res := labels["resource"]
		if s := labels["subresource"]; s != "" {
			res += "/" + s
		}
		if !counted(labels["verb"], res) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(line[end+1:]), 64)
		if err != nil {
			return nil, fmt.Errorf("parsing %q: %w", line, err)
		}
		code, _ := strconv.Atoi(labels["code"])
		out[writeKey{labels["verb"], res, code}] += int64(v)
	}
	return out, sc.Err()
}

// parseLabels splits `a="x",b="y"`; label values here never hold quotes.
func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || len(s) < eq+2 {
			break
		}
		name := s[:eq]
		rest := s[eq+2:]
		q := strings.IndexByte(rest, '"')
		if q < 0 {
			break
		}
		out[name] = rest[:q]
		s = strings.TrimPrefix(rest[q+1:], ",")
	}
	return out
}

// diffWrites is after − before, series by series.
func diffWrites(before, after map[writeKey]int64) map[writeKey]int64 {
	out := map[writeKey]int64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}
