package doctor

import (
	"context"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/config/crd"
)

const checkCRDName = "extended kind CRD"

// ExtendedKind is the group/version and resource of Ordinal's own
// StatefulSet kind, which the built-in controller never touches.
const (
	ExtendedGroupVersion = "apps.ordinal.dev/v1alpha1"
	ExtendedResource     = "statefulsets"
	extendedGroup        = "apps.ordinal.dev"
	extendedVersion      = "v1alpha1"
)

// checkCRD reads the extended kind's CustomResourceDefinition: installed,
// its names accepted, Established (served) and serving v1alpha1. Not
// installed is a warning while Ordinal manages apps/v1 sets, and a failure
// when it manages only the extended kind. A user who may not read CRDs gets
// discovery's answer instead, which needs no permission.
func (d *Doctor) checkCRD(ctx context.Context, extendedOnly bool) Result {
	got, err := d.ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.StatefulSetName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return notInstalled(extendedOnly)
	case apierrors.IsForbidden(err):
		return d.checkCRDByDiscovery(extendedOnly, forbiddenReason(err))
	case err != nil:
		return couldNot(checkCRDName, "reading CustomResourceDefinition "+crd.StatefulSetName, err)
	}
	if broken := crdProblem(got); broken != "" {
		return Result{Check: checkCRDName, Status: Fail, Message: fmt.Sprintf(
			"broken: CustomResourceDefinition %s %s; reinstall it from the chart's crds/ or config/crd", crd.StatefulSetName, broken)}
	}
	ours, err := crd.StatefulSet()
	if err != nil {
		return couldNot(checkCRDName, "reading this ordinal's own copy of the CRD", err)
	}
	msg := fmt.Sprintf("installed and Established: the API server serves %s %s", ExtendedGroupVersion, ExtendedResource)
	if !sameVersions(got, ours) {
		return Result{Check: checkCRDName, Status: Warn, Message: msg + ", but not the CRD this ordinal carries " +
			"(Helm installs CRDs and never upgrades them): kubectl apply --server-side -f config/crd/apps.ordinal.dev_statefulsets.yaml"}
	}
	return Result{Check: checkCRDName, Status: OK, Message: msg}
}

// sameVersions reports whether the installed CRD's versions — schema,
// subresources, columns — are ours, defaulted as the API server defaults
// them.
func sameVersions(installed, ours *apiextensionsv1.CustomResourceDefinition) bool {
	ours = ours.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(ours)
	return equality.Semantic.DeepEqual(installed.Spec.Versions, ours.Spec.Versions)
}

// crdProblem says why a CRD cannot serve the kind: names refused, being
// deleted, not Established, or without a served v1alpha1; empty if none.
func crdProblem(c *apiextensionsv1.CustomResourceDefinition) string {
	if cond := apihelpers.FindCRDCondition(c, apiextensionsv1.NamesAccepted); cond != nil && cond.Status == apiextensionsv1.ConditionFalse {
		return fmt.Sprintf("has its names refused (%s: %s)", cond.Reason, cond.Message)
	}
	if c.DeletionTimestamp != nil {
		return "is being deleted"
	}
	if cond := apihelpers.FindCRDCondition(c, apiextensionsv1.Established); cond == nil || cond.Status != apiextensionsv1.ConditionTrue {
		return "is not Established" + conditionDetail(cond)
	}
	for _, v := range c.Spec.Versions {
		if v.Name == extendedVersion && v.Served {
			return ""
		}
	}
	return "does not serve " + extendedVersion
}

func conditionDetail(c *apiextensionsv1.CustomResourceDefinitionCondition) string {
	if c == nil || (c.Reason == "" && c.Message == "") {
		return ""
	}
	return fmt.Sprintf(" (%s: %s)", c.Reason, c.Message)
}

func notInstalled(extendedOnly bool) Result {
	if extendedOnly {
		return Result{Check: checkCRDName, Status: Fail, Message: fmt.Sprintf(
			"not installed: the API server does not serve %s %s, the only kind Ordinal manages with --manage-apps-v1=false; "+
				"install it (the chart's crds/ or config/crd) and restart the controller", ExtendedGroupVersion, ExtendedResource)}
	}
	return Result{Check: checkCRDName, Status: Warn, Message: fmt.Sprintf(
		"not installed: the API server does not serve %s %s, so only apps/v1 StatefulSets can be used", ExtendedGroupVersion, ExtendedResource)}
}

// checkCRDByDiscovery asks discovery whether the API server serves the
// extended kind: true only once its CRD is installed and Established.
// Discovery is open to every authenticated user.
func (d *Doctor) checkCRDByDiscovery(extendedOnly bool, forbidden string) Result {
	list, err := d.client.Discovery().ServerResourcesForGroupVersion(ExtendedGroupVersion)
	if apierrors.IsNotFound(err) {
		return notInstalled(extendedOnly)
	}
	if err != nil {
		return couldNot(checkCRDName, "reading "+ExtendedGroupVersion+" discovery", err)
	}
	for _, r := range list.APIResources {
		if r.Name == ExtendedResource {
			return Result{Check: checkCRDName, Status: OK, Message: fmt.Sprintf(
				"installed: the API server serves %s %s (from discovery: reading the CRD is forbidden: %s)", ExtendedGroupVersion, ExtendedResource, forbidden)}
		}
	}
	return Result{Check: checkCRDName, Status: Fail, Message: fmt.Sprintf(
		"broken: %s is served without %s; reinstall the CRD", ExtendedGroupVersion, ExtendedResource)}
}
