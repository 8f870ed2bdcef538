package install

import (
	"context"
	"testing"
	"time"
)

// Every rendering of the chart, with its crds/ as `helm install` applies
// them, and config/, is accepted by the API server in a server-side dry
// run: valid against the schemas of the objects (the ServiceMonitor's from
// the Prometheus Operator's CRD), admitted, and allowed to the admin, who
// also may grant the roles they hold. The plane has installed the extended
// kind's CRD already, so its dry run is an update of the same object.
func TestTheManifestsPassServerSideDryRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := newApplier(t)
	installServiceMonitorCRD(t, ctx, a)
	manifests := map[string]string{"config/": buildConfig(t)}
	for name, r := range releases {
		r.crds = true
		manifests["chart "+name] = r.mustRender(t)
	}
	for name, m := range manifests {
		t.Run(name, func(t *testing.T) {
			objs := objects(t, m)
			if len(objs) < 4 {
				t.Fatalf("only %d objects rendered", len(objs))
			}
			if len(crdsIn(t, m)) != 1 {
				t.Fatalf("%d CustomResourceDefinitions rendered, want the extended kind's", len(crdsIn(t, m)))
			}
			ensureNamespaces(t, ctx, objs)
			if err := a.applyAll(ctx, objs, true); err != nil {
				t.Fatalf("server-side dry run:\n%v", err)
			}
		})
	}
}
