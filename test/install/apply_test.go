package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// objects splits a multi-document YAML stream into objects.
func objects(t *testing.T, manifest string) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifest), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decoding the manifests: %v", err)
		}
		if len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// applier applies objects with server-side apply, as
// `kubectl apply --server-side` does, with strict field validation, so a
// field the API does not know is an error rather than silently dropped.
type applier struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newApplier(t *testing.T) *applier {
	t.Helper()
	cfg := planetest.Plane().RESTConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(planetest.Client().Discovery()))
	return &applier{dyn: dyn, mapper: mapper}
}

// apply applies obj; with dryRun the API server validates and admits it,
// then stores nothing.
func (a *applier) apply(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) error {
	gvk := obj.GroupVersionKind()
	mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("%s %s: %w", gvk.Kind, obj.GetName(), err)
	}
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	opts := metav1.PatchOptions{FieldManager: "ordinal-install-test", Force: new(true), FieldValidation: "Strict"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	var client dynamic.ResourceInterface = a.dyn.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		client = a.dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace())
	}
	if _, err := client.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts); err != nil {
		return fmt.Errorf("%s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

// applyAll applies every object and returns every failure.
func (a *applier) applyAll(ctx context.Context, objs []*unstructured.Unstructured, dryRun bool) error {
	var errs []error
	for _, o := range objs {
		errs = append(errs, a.apply(ctx, o, dryRun))
	}
	return errors.Join(errs...)
}

// ensureNamespaces creates, for real, the namespaces the objects live in: a
// dry run cannot place an object in a namespace that does not exist yet,
// and the install guide has the user create them first.
func ensureNamespaces(t *testing.T, ctx context.Context, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		ns := o.GetNamespace()
		if ns == "" {
			continue
		}
		_, err := planetest.Client().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// serviceMonitorModule is the Prometheus Operator release whose
// ServiceMonitor CRD validates the chart's ServiceMonitor.
const serviceMonitorModule = "github.com/prometheus-operator/prometheus-operator@v0.85.0"

// installServiceMonitorCRD installs the Prometheus Operator's own
// ServiceMonitor CRD, from its Go module, and waits until it is served.
func installServiceMonitorCRD(t *testing.T, ctx context.Context, a *applier) {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", serviceMonitorModule)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", serviceMonitorModule, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s printed no directory: %v\n%s", serviceMonitorModule, err, out)
	}
	crd := readFile(t, filepath.Join(mod.Dir, "example", "prometheus-operator-crd", "monitoring.coreos.com_servicemonitors.yaml"))
	if err := a.applyAll(ctx, objects(t, crd), false); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		a.mapper.Reset()
		if _, err := a.mapper.RESTMapping(schemaGK("monitoring.coreos.com", "ServiceMonitor"), "v1"); err == nil {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("the ServiceMonitor CRD was not served within 30s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
