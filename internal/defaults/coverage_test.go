package defaults

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// changedPaths returns the JSON paths at which after differs from before
// (both specs, walked as their JSON encoding would show them), with list
// indexes written "[]" and resource names "*", and with the new value
// where the value tells rules apart (image pull policies).
func changedPaths(before, after *appsv1.StatefulSetSpec) map[string]bool {
	old, cur := map[string]string{}, map[string]string{}
	leaves("spec", reflect.ValueOf(before).Elem(), old)
	leaves("spec", reflect.ValueOf(after).Elem(), cur)
	paths := map[string]bool{}
	for path, value := range cur {
		if was, ok := old[path]; !ok || was != value {
			if strings.HasSuffix(path, "ullPolicy") {
				path += "=" + value
			}
			paths[path] = true
		}
	}
	return paths
}

// marshaler is the type of values that encode themselves (quantities,
// times, int-or-strings); they are leaves.
var marshaler = reflect.TypeFor[json.Marshaler]()

// leaves records every leaf value under v by its JSON path. A nil pointer,
// map or slice has no leaves; a struct with none is a leaf "{}", so that an
// empty object set by a default (an emptyDir, a securityContext) shows.
func leaves(path string, v reflect.Value, out map[string]string) {
	switch {
	case v.Kind() == reflect.Pointer:
		if !v.IsNil() {
			leaves(path, v.Elem(), out)
		}
	case reflect.PointerTo(v.Type()).Implements(marshaler):
		addressable := reflect.New(v.Type()) // map values are not addressable
		addressable.Elem().Set(v)
		encoded, _ := json.Marshal(addressable.Interface())
		out[path] = string(encoded)
	case v.Kind() == reflect.Struct:
		structLeaves(path, v, out)
	case v.Kind() == reflect.Slice:
		for i := range v.Len() {
			leaves(path+"[]", v.Index(i), out)
		}
	case v.Kind() == reflect.Map:
		for it := v.MapRange(); it.Next(); {
			key := it.Key().String()
			if v.Type().Key() == reflect.TypeFor[corev1.ResourceName]() {
				key = "*"
			}
			leaves(path+"."+key, it.Value(), out)
		}
	default:
		out[path] = fmt.Sprint(v.Interface())
	}
}

// structLeaves records the leaves of each field by its JSON name (inline
// fields at the struct's own path), or the struct as "{}" if it has none.
func structLeaves(path string, v reflect.Value, out map[string]string) {
	before := len(out)
	for i := range v.NumField() {
		field := v.Type().Field(i)
		name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
		switch {
		case !field.IsExported() || name == "-":
		case field.Anonymous || name == "":
			leaves(path, v.Field(i), out)
		default:
			leaves(path+"."+name, v.Field(i), out)
		}
	}
	if len(out) == before {
		out[path] = "{}"
	}
}

// everyRule lists a path each default writes; the random sets must change
// every one of them at least once.
var everyRule = []string{
	"spec.podManagementPolicy",
	"spec.replicas",
	"spec.revisionHistoryLimit",
	"spec.persistentVolumeClaimRetentionPolicy.whenDeleted",
	"spec.persistentVolumeClaimRetentionPolicy.whenScaled",
	"spec.updateStrategy.type",
	"spec.updateStrategy.rollingUpdate.partition",
	"spec.template.spec.dnsPolicy",
	"spec.template.spec.restartPolicy",
	"spec.template.spec.securityContext",
	"spec.template.spec.terminationGracePeriodSeconds",
	"spec.template.spec.schedulerName",
	"spec.template.spec.overhead.*",
	"spec.template.spec.resources.limits.*",
	"spec.template.spec.resources.requests.*",
	"spec.volumeClaimTemplates[].status.phase",
	"spec.volumeClaimTemplates[].spec.volumeMode",
	"spec.volumeClaimTemplates[].spec.resources.requests.*",
	"spec.volumeClaimTemplates[].spec.resources.limits.*",
	"spec.volumeClaimTemplates[].status.capacity.*",
	"spec.volumeClaimTemplates[].status.allocatedResources.*",
}

// containerRules lists the paths each default writes below each kind of
// container.
var containerRules = []string{
	"imagePullPolicy=Always",
	"imagePullPolicy=IfNotPresent",
	"terminationMessagePath",
	"terminationMessagePolicy",
	"ports[].protocol",
	"env[].valueFrom.fieldRef.apiVersion",
	"env[].valueFrom.fileKeyRef.optional",
	"resources.limits.*",
	"resources.requests.*",
	"livenessProbe.timeoutSeconds",
	"readinessProbe.periodSeconds",
	"startupProbe.successThreshold",
	"livenessProbe.failureThreshold",
	"readinessProbe.httpGet.path",
	"startupProbe.httpGet.scheme",
	"livenessProbe.grpc.service",
	"lifecycle.postStart.httpGet.path",
	"lifecycle.preStop.httpGet.scheme",
}

// volumeRules lists the paths each default writes below a pod volume.
var volumeRules = []string{
	"emptyDir",
	"image.pullPolicy=Always",
	"image.pullPolicy=IfNotPresent",
	"hostPath.type",
	"secret.defaultMode",
	"configMap.defaultMode",
	"downwardAPI.defaultMode",
	"downwardAPI.items[].fieldRef.apiVersion",
	"projected.defaultMode",
	"projected.sources[].downwardAPI.items[].fieldRef.apiVersion",
	"projected.sources[].serviceAccountToken.expirationSeconds",
	"iscsi.iscsiInterface",
	"rbd.pool",
	"rbd.user",
	"rbd.keyring",
	"azureDisk.cachingMode",
	"azureDisk.fsType",
	"azureDisk.readOnly",
	"azureDisk.kind",
	"scaleIO.storageMode",
	"scaleIO.fsType",
	"ephemeral.volumeClaimTemplate.spec.volumeMode",
	"ephemeral.volumeClaimTemplate.spec.resources.requests.*",
}

// checkEveryRuleFired fails for each rule no random set exercised, and
// logs how often the rarest rule fired.
func checkEveryRuleFired(t *testing.T, changed map[string]int, gate bool) {
	t.Helper()
	want := ruleList(gate)
	rarest := want[0]
	for _, path := range want {
		if changed[path] == 0 {
			t.Errorf("no random set exercised the default at %s", path)
		}
		if changed[path] < changed[rarest] {
			rarest = path
		}
	}
	if !gate && changed["spec.updateStrategy.rollingUpdate.maxUnavailable"] > 0 {
		t.Errorf("maxUnavailable was defaulted with the gate off")
	}
	t.Logf("%d rules exercised, the rarest %d times (%s); %d paths changed in all",
		len(want), changed[rarest], rarest, len(changed))
}

// ruleList returns the path of every rule, below each kind of container
// and below volumes, with maxUnavailable when the gate is on.
func ruleList(gate bool) []string {
	want := append([]string(nil), everyRule...)
	if gate {
		want = append(want, "spec.updateStrategy.rollingUpdate.maxUnavailable")
	}
	for _, kind := range []string{"containers", "initContainers", "ephemeralContainers"} {
		for _, rule := range containerRules {
			want = append(want, "spec.template.spec."+kind+"[]."+rule)
		}
	}
	for _, rule := range volumeRules {
		want = append(want, "spec.template.spec.volumes[]."+rule)
	}
	return want
}
