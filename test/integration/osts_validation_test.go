package integration

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// The API server's wording around a CRD's validation failures.
const (
	invalidWeb = `StatefulSet.apps.ordinal.dev "web" is invalid: `
	notChecked = `<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`
)

// ruleError is the error of a CEL rule reported at field.
func ruleError(field, message string) string {
	return invalidWeb + field + ": Invalid value: " + message
}

// schemaErrors is the error of one or more schema failures.
func schemaErrors(causes ...string) string {
	if len(causes) == 1 {
		return invalidWeb + causes[0]
	}
	return invalidWeb + "[" + strings.Join(causes, ", ") + "]"
}

// invalidCase is a change to a valid set and the API error it must get.
type invalidCase struct {
	name   string
	mutate func(*v1alpha1.StatefulSet)
	want   string
}

func rollingUpdateOf(s *v1alpha1.StatefulSet) *v1alpha1.RollingUpdateStatefulSetStrategy {
	if s.Spec.UpdateStrategy.RollingUpdate == nil {
		s.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{}
	}
	return s.Spec.UpdateStrategy.RollingUpdate
}

func maxUnavailableOf(v intstr.IntOrString) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { rollingUpdateOf(s).MaxUnavailable = &v }
}

func scaleUpMaxOf(v intstr.IntOrString) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { s.Spec.ScaleStrategy = &v1alpha1.ScaleStrategy{MaxUnavailable: &v} }
}

func selectorExpression(op metav1.LabelSelectorOperator, key string, values ...string) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) {
		s.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}
	}
}

// priorityRules sets rollingUpdate.priority.
func priorityRules(rules ...v1alpha1.UpdatePriorityRule) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { rollingUpdateOf(s).Priority = rules }
}

// priorityRule is a rule of the given weight on role=primary, or on
// matchExpressions when any are given.
func priorityRule(weight int32, exprs ...metav1.LabelSelectorRequirement) v1alpha1.UpdatePriorityRule {
	if len(exprs) > 0 {
		return v1alpha1.UpdatePriorityRule{Weight: weight, Selector: metav1.LabelSelector{MatchExpressions: exprs}}
	}
	return v1alpha1.UpdatePriorityRule{Weight: weight, Selector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "primary"}}}
}

func roleExpr(op metav1.LabelSelectorOperator, values ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: "role", Operator: op, Values: values}
}

func priorityCases() []invalidCase {
	const (
		weight    = "spec.updateStrategy.rollingUpdate.priority[].weight must be from -1000 to 1000"
		empty     = "spec.updateStrategy.rollingUpdate.priority[].selector must not be empty: an empty selector matches every pod and changes no order"
		operators = "spec.updateStrategy.rollingUpdate.priority[].selector.matchExpressions must each have operator In or NotIn with values, or Exists or DoesNotExist without"
	)
	var seventeen []v1alpha1.UpdatePriorityRule
	for range 17 {
		seventeen = append(seventeen, priorityRule(1))
	}
	return []invalidCase{
		{"a priority weight over 1000", priorityRules(priorityRule(1001)),
			ruleError("spec.updateStrategy.rollingUpdate.priority[0].weight", weight)},
		{"a priority weight under -1000", priorityRules(priorityRule(-1), priorityRule(-1001)),
			ruleError("spec.updateStrategy.rollingUpdate.priority[1].weight", weight)},
		{"a priority rule with an empty selector", priorityRules(v1alpha1.UpdatePriorityRule{Weight: 5}),
			ruleError("spec.updateStrategy.rollingUpdate.priority[0].selector", empty)},
		{"a priority expression In without values", priorityRules(priorityRule(5, roleExpr(metav1.LabelSelectorOpIn))),
			ruleError("spec.updateStrategy.rollingUpdate.priority[0].selector.matchExpressions", operators)},
		{"a priority expression Exists with values", priorityRules(priorityRule(5, roleExpr(metav1.LabelSelectorOpExists, "primary"))),
			ruleError("spec.updateStrategy.rollingUpdate.priority[0].selector.matchExpressions", operators)},
		{"a priority expression with an unknown operator", priorityRules(priorityRule(5, roleExpr("Has", "primary"))),
			ruleError("spec.updateStrategy.rollingUpdate.priority[0].selector.matchExpressions", operators)},
		{"17 priority rules", priorityRules(seventeen...),
			schemaErrors("spec.updateStrategy.rollingUpdate.priority: Too many: 17: must have at most 16 items", notChecked)},
	}
}

func hookCases() []invalidCase {
	const (
		oneHandler = "a lifecycle hook has exactly one handler: set one of handshake, http or service"
		badURL     = "url must be an absolute http:// or https:// URL with a host"
		caBundle   = "caBundle verifies an https:// url: make the url https:// or remove caBundle"
		svcName    = "name must be a Service name: at most 63 lowercase letters, digits and '-', starting with a letter and ending with a letter or digit"
		svcPath    = "path must start with / and hold no ? or #"
	)
	hook := func(h v1alpha1.LifecycleHook) func(*v1alpha1.StatefulSet) {
		return func(s *v1alpha1.StatefulSet) { s.Spec.Lifecycle = &v1alpha1.Lifecycle{PreUpdate: &h} }
	}
	web := &v1alpha1.HTTPHook{URL: "http://db-admin:8080/switchover"}
	return []invalidCase{
		{"a hook with two handlers", hook(v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}, HTTP: web}),
			ruleError("spec.lifecycle.preUpdate", oneHandler)},
		{"a hook without a handler", hook(v1alpha1.LifecycleHook{TimeoutSeconds: 5}),
			ruleError("spec.lifecycle.preUpdate", oneHandler)},
		{"a hook with an http and a service handler", hook(v1alpha1.LifecycleHook{HTTP: web, Service: &v1alpha1.ServiceHook{Name: "db-admin"}}),
			ruleError("spec.lifecycle.preUpdate", oneHandler)},
		{"a caBundle for an http:// URL", hook(v1alpha1.LifecycleHook{HTTP: &v1alpha1.HTTPHook{URL: web.URL, CABundle: []byte("PEM")}}),
			ruleError("spec.lifecycle.preUpdate.http", caBundle)},
		{"a service hook's name that is no Service name", hook(v1alpha1.LifecycleHook{Service: &v1alpha1.ServiceHook{Name: "DB_admin"}}),
			ruleError("spec.lifecycle.preUpdate.service.name", `"DB_admin": `+svcName)},
		{"a service hook's path without a /", hook(v1alpha1.LifecycleHook{Service: &v1alpha1.ServiceHook{Name: "db-admin", Path: "switchover?now"}}),
			ruleError("spec.lifecycle.preUpdate.service.path", `"switchover?now": `+svcPath)},
		{"a hook URL without a scheme", hook(v1alpha1.LifecycleHook{HTTP: &v1alpha1.HTTPHook{URL: "db-admin:8080/switchover"}}),
			ruleError("spec.lifecycle.preUpdate.http.url", `"db-admin:8080/switchover": `+badURL)},
		{"a hook URL of another scheme", hook(v1alpha1.LifecycleHook{HTTP: &v1alpha1.HTTPHook{URL: "ftp://db-admin/switchover"}}),
			ruleError("spec.lifecycle.preUpdate.http.url", `"ftp://db-admin/switchover": `+badURL)},
		{"a hook failure policy it does not know", hook(v1alpha1.LifecycleHook{HTTP: web, FailurePolicy: "Ignore"}),
			schemaErrors(`spec.lifecycle.preUpdate.failurePolicy: Unsupported value: "Ignore": supported values: "Halt", "Proceed"`, notChecked)},
		{"a hook timeout over a day", hook(v1alpha1.LifecycleHook{HTTP: web, TimeoutSeconds: 86401}),
			schemaErrors(`spec.lifecycle.preUpdate.timeoutSeconds: Invalid value: 86401: spec.lifecycle.preUpdate.timeoutSeconds in body should be less than or equal to 86400`)},
		{"a reload hook without configRevisions", reloadHook(nil),
			ruleError("spec.lifecycle.reload", noReload)},
		{"a reload hook under apply Restart", reloadHook(&v1alpha1.ConfigRevisions{Apply: v1alpha1.ConfigApplyRestart}),
			ruleError("spec.lifecycle.reload", noReload)},
		{"a config apply it does not know", func(s *v1alpha1.StatefulSet) { s.Spec.ConfigRevisions = &v1alpha1.ConfigRevisions{Apply: "Hot"} },
			schemaErrors(`spec.configRevisions.apply: Unsupported value: "Hot": supported values: "Restart", "Reload"`, notChecked)},
	}
}

// noReload is the message of the rule that keeps lifecycle.reload to sets
// that reload.
const noReload = "spec.lifecycle.reload runs only when spec.configRevisions.apply is Reload: set it, or remove the hook"

// reloadHook gives the set a reload handshake and config.
func reloadHook(config *v1alpha1.ConfigRevisions) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) {
		s.Spec.ConfigRevisions = config
		s.Spec.Lifecycle = &v1alpha1.Lifecycle{Reload: handshakeHook(60, v1alpha1.HookHalt)}
	}
}

func createCases() []invalidCase {
	const (
		dnsLabel       = "metadata.name must be a DNS label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit"
		matchLabels    = "spec.selector.matchLabels must match spec.template.metadata.labels"
		matchExprs     = "spec.selector.matchExpressions must match spec.template.metadata.labels"
		maxUnavailable = "spec.updateStrategy.rollingUpdate.maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%"
		rollingOnly    = "spec.updateStrategy.rollingUpdate is allowed only with type RollingUpdate"
		scaleUp        = "spec.scaleStrategy.maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%"
	)
	return []invalidCase{
		{"a name that is not a DNS label", func(s *v1alpha1.StatefulSet) { s.Name = "web.v2" },
			`StatefulSet.apps.ordinal.dev "web.v2" is invalid: metadata: Invalid value: ` + dnsLabel},
		{"an empty selector", func(s *v1alpha1.StatefulSet) { s.Spec.Selector = &metav1.LabelSelector{} },
			ruleError("spec.selector", "spec.selector must not be empty")},
		{"matchLabels the template lacks", func(s *v1alpha1.StatefulSet) { s.Spec.Template.Labels = map[string]string{"app": "other"} },
			ruleError("spec.selector.matchLabels", matchLabels)},
		{"matchLabels and a template without labels", func(s *v1alpha1.StatefulSet) { s.Spec.Template.Labels = nil },
			ruleError("spec.selector.matchLabels", matchLabels)},
		{"matchExpressions In a value the template lacks", selectorExpression(metav1.LabelSelectorOpIn, "app", "db"),
			ruleError("spec.selector.matchExpressions", matchExprs)},
		{"matchExpressions NotIn the template's value", selectorExpression(metav1.LabelSelectorOpNotIn, "app", "nginx"),
			ruleError("spec.selector.matchExpressions", matchExprs)},
		{"matchExpressions Exists on a label the template lacks", selectorExpression(metav1.LabelSelectorOpExists, "tier"),
			ruleError("spec.selector.matchExpressions", matchExprs)},
		{"matchExpressions DoesNotExist on the template's label", selectorExpression(metav1.LabelSelectorOpDoesNotExist, "app"),
			ruleError("spec.selector.matchExpressions", matchExprs)},
		{"a selector label value over 63 characters", func(s *v1alpha1.StatefulSet) {
			long := strings.Repeat("x", 64)
			s.Spec.Selector.MatchLabels["app"], s.Spec.Template.Labels["app"] = long, long
		}, schemaErrors("spec.selector.matchLabels.app: Too long: may not be more than 63 bytes", notChecked)},
		{"no containers", func(s *v1alpha1.StatefulSet) { s.Spec.Template.Spec.Containers = []corev1.Container{} },
			ruleError("spec.template.spec.containers", "spec.template.spec.containers must list at least one container")},
		{"restartPolicy Never", func(s *v1alpha1.StatefulSet) { s.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			ruleError("spec.template.spec.restartPolicy", "spec.template.spec.restartPolicy must be Always")},
		{"activeDeadlineSeconds", func(s *v1alpha1.StatefulSet) { s.Spec.Template.Spec.ActiveDeadlineSeconds = ptr(int64(60)) },
			ruleError("spec.template.spec.activeDeadlineSeconds", "spec.template.spec.activeDeadlineSeconds is not supported in a StatefulSet")},
		{"progressDeadlineSeconds equal to minReadySeconds", func(s *v1alpha1.StatefulSet) {
			s.Spec.MinReadySeconds, s.Spec.ProgressDeadlineSeconds = 30, ptr(int32(30))
		}, ruleError("spec.progressDeadlineSeconds", "spec.progressDeadlineSeconds must be greater than spec.minReadySeconds")},
		{"maxUnavailable 0", maxUnavailableOf(intstr.FromInt32(0)), ruleError("spec.updateStrategy.rollingUpdate.maxUnavailable", "0: "+maxUnavailable)},
		{"maxUnavailable -1", maxUnavailableOf(intstr.FromInt32(-1)), ruleError("spec.updateStrategy.rollingUpdate.maxUnavailable", "-1: "+maxUnavailable)},
		{"maxUnavailable 0%", maxUnavailableOf(intstr.FromString("0%")), ruleError("spec.updateStrategy.rollingUpdate.maxUnavailable", `"0%": `+maxUnavailable)},
		{"maxUnavailable 101%", maxUnavailableOf(intstr.FromString("101%")), ruleError("spec.updateStrategy.rollingUpdate.maxUnavailable", `"101%": `+maxUnavailable)},
		{"maxUnavailable a word", maxUnavailableOf(intstr.FromString("half")), ruleError("spec.updateStrategy.rollingUpdate.maxUnavailable", `"half": `+maxUnavailable)},
		{"scaleStrategy.maxUnavailable 0", scaleUpMaxOf(intstr.FromInt32(0)), ruleError("spec.scaleStrategy.maxUnavailable", "0: "+scaleUp)},
		{"scaleStrategy.maxUnavailable 101%", scaleUpMaxOf(intstr.FromString("101%")), ruleError("spec.scaleStrategy.maxUnavailable", `"101%": `+scaleUp)},
		{"rollingUpdate with OnDelete", func(s *v1alpha1.StatefulSet) {
			s.Spec.UpdateStrategy.Type = v1alpha1.OnDeleteStatefulSetStrategyType
			rollingUpdateOf(s).Partition = ptr(int32(1))
		}, ruleError("spec.updateStrategy.rollingUpdate", rollingOnly)},
		{"rollingUpdate with Recreate", func(s *v1alpha1.StatefulSet) {
			s.Spec.UpdateStrategy.Type = v1alpha1.RecreateStatefulSetStrategyType
			rollingUpdateOf(s).Paused = true
		}, ruleError("spec.updateStrategy.rollingUpdate", rollingOnly)},
		{"an unknown podManagementPolicy", func(s *v1alpha1.StatefulSet) { s.Spec.PodManagementPolicy = "Sometimes" },
			schemaErrors(`spec.podManagementPolicy: Unsupported value: "Sometimes": supported values: "OrderedReady", "Parallel"`, notChecked)},
		{"an unknown update strategy", func(s *v1alpha1.StatefulSet) { s.Spec.UpdateStrategy.Type = "Canary" },
			schemaErrors(`spec.updateStrategy.type: Unsupported value: "Canary": supported values: "RollingUpdate", "OnDelete", "Recreate"`, notChecked)},
		{"an unknown selfHealing", func(s *v1alpha1.StatefulSet) { rollingUpdateOf(s).SelfHealing = "Sometimes" },
			schemaErrors(`spec.updateStrategy.rollingUpdate.selfHealing: Unsupported value: "Sometimes": supported values: "Enabled", "Disabled"`, notChecked)},
		{"an unknown onFailure", func(s *v1alpha1.StatefulSet) { rollingUpdateOf(s).OnFailure = "Retry" },
			schemaErrors(`spec.updateStrategy.rollingUpdate.onFailure: Unsupported value: "Retry": supported values: "Report", "Pause", "Rollback"`, notChecked)},
		{"an unknown claim update strategy", func(s *v1alpha1.StatefulSet) { s.Spec.VolumeClaimUpdateStrategy.Type = "Resize" },
			schemaErrors(`spec.volumeClaimUpdateStrategy.type: Unsupported value: "Resize": supported values: "OnClaimDelete", "InPlace"`, notChecked)},
		{"two claim templates of one name", func(s *v1alpha1.StatefulSet) {
			www := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "www"}}
			s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{www, www}
		}, ruleError("spec.volumeClaimTemplates", "spec.volumeClaimTemplates names must be unique")},
		{"an unknown retention policy", func(s *v1alpha1.StatefulSet) {
			s.Spec.PersistentVolumeClaimRetentionPolicy = &v1alpha1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: "Keep", WhenScaled: "Forget"}
		}, schemaErrors(`spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"`,
			`spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: "Forget": supported values: "Retain", "Delete"`, notChecked)},
		{"negative replicas", func(s *v1alpha1.StatefulSet) { s.Spec.Replicas = ptr(int32(-1)) },
			schemaErrors("spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
				".spec.replicas: Invalid value: -1: should be a non-negative integer")},
		{"replicas over the maximum", func(s *v1alpha1.StatefulSet) { s.Spec.Replicas = ptr(int32(v1alpha1.MaxReplicas + 1)) },
			schemaErrors("spec.replicas: Invalid value: 100001: spec.replicas in body should be less than or equal to 100000")},
		{"negative revisionHistoryLimit", func(s *v1alpha1.StatefulSet) { s.Spec.RevisionHistoryLimit = ptr(int32(-1)) },
			schemaErrors("spec.revisionHistoryLimit: Invalid value: -1: spec.revisionHistoryLimit in body should be greater than or equal to 0")},
		{"negative minReadySeconds", func(s *v1alpha1.StatefulSet) { s.Spec.MinReadySeconds = -1 },
			schemaErrors("spec.minReadySeconds: Invalid value: -1: spec.minReadySeconds in body should be greater than or equal to 0")},
		{"a negative partition", func(s *v1alpha1.StatefulSet) { rollingUpdateOf(s).Partition = ptr(int32(-1)) },
			schemaErrors("spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: spec.updateStrategy.rollingUpdate.partition in body should be greater than or equal to 0")},
		{"progressDeadlineSeconds 0", func(s *v1alpha1.StatefulSet) { s.Spec.ProgressDeadlineSeconds = ptr(int32(0)) },
			schemaErrors("spec.progressDeadlineSeconds: Invalid value: 0: spec.progressDeadlineSeconds in body should be greater than or equal to 1")},
		{"a negative ordinals start", func(s *v1alpha1.StatefulSet) { s.Spec.Ordinals = &v1alpha1.StatefulSetOrdinals{Start: -1} },
			schemaErrors("spec.ordinals.start: Invalid value: -1: spec.ordinals.start in body should be greater than or equal to 0")},
		{"a serviceName that is not a DNS label", func(s *v1alpha1.StatefulSet) { s.Spec.ServiceName = "Nginx_1" },
			schemaErrors(`spec.serviceName: Invalid value: "Nginx_1": spec.serviceName in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'`)},
	}
}

// Every schema and CEL rule a new set can break: the set gets exactly the
// error the rule states and is not created.
func TestInvalidExtendedSetsGetTheRulesMessage(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	sets := extendedSets(t, ns)
	for _, c := range slices.Concat(createCases(), priorityCases(), hookCases(), roleCases(), budgetCases()) {
		t.Run(c.name, func(t *testing.T) {
			set := extended(t, webSet(ns))
			c.mutate(set)
			_, err := sets.Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil {
				t.Fatal("accepted")
			}
			if err.Error() != c.want && !sameCauses(err, c.want) {
				t.Errorf("\n got: %s\nwant: %s", err, c.want)
			}
		})
	}
}

// sameCauses reports whether err carries exactly the causes of want, the
// message of schemaErrors, in another order: the API server does not
// order the schema's errors of sibling fields.
func sameCauses(err error, want string) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return false
	}
	var causes []string
	for _, c := range status.Status().Details.Causes {
		causes = append(causes, c.Field+": "+c.Message)
	}
	return anyOrder(causes, func(order []string) bool { return schemaErrors(order...) == want })
}

// anyOrder reports whether ok holds for some order of items.
func anyOrder(items []string, ok func([]string) bool) bool {
	if len(items) < 2 {
		return ok(items)
	}
	for i := range items {
		rest := slices.Concat(items[:i], items[i+1:])
		if anyOrder(rest, func(tail []string) bool { return ok(append([]string{items[i]}, tail...)) }) {
			return true
		}
	}
	return false
}

// The other side of each rule: what apps/v1 accepts, the kind accepts too.
func TestValidExtendedSetsAreAccepted(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	sets := extendedSets(t, ns)
	cases := []struct {
		name   string
		mutate func(*v1alpha1.StatefulSet)
	}{
		{"examples/web.yaml's set", func(*v1alpha1.StatefulSet) {}},
		{"matchExpressions In the template's value", selectorExpression(metav1.LabelSelectorOpIn, "app", "db", "nginx")},
		{"matchExpressions NotIn other values", selectorExpression(metav1.LabelSelectorOpNotIn, "app", "db")},
		{"matchExpressions NotIn on a label the template lacks", selectorExpression(metav1.LabelSelectorOpNotIn, "tier", "cache")},
		{"matchExpressions Exists on the template's label", selectorExpression(metav1.LabelSelectorOpExists, "app")},
		{"matchExpressions DoesNotExist on a label the template lacks", selectorExpression(metav1.LabelSelectorOpDoesNotExist, "tier")},
		{"only matchExpressions", func(s *v1alpha1.StatefulSet) {
			s.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}}}
		}},
		{"restartPolicy Always", func(s *v1alpha1.StatefulSet) { s.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways }},
		{"progressDeadlineSeconds above minReadySeconds", func(s *v1alpha1.StatefulSet) {
			s.Spec.MinReadySeconds, s.Spec.ProgressDeadlineSeconds = 30, ptr(int32(31))
		}},
		{"maxUnavailable 2", maxUnavailableOf(intstr.FromInt32(2))},
		{"maxUnavailable 1%", maxUnavailableOf(intstr.FromString("1%"))},
		{"maxUnavailable 100%", maxUnavailableOf(intstr.FromString("100%"))},
		{"OnDelete", func(s *v1alpha1.StatefulSet) { s.Spec.UpdateStrategy.Type = v1alpha1.OnDeleteStatefulSetStrategyType }},
		{"Recreate", func(s *v1alpha1.StatefulSet) { s.Spec.UpdateStrategy.Type = v1alpha1.RecreateStatefulSetStrategyType }},
		{"every rollout field", func(s *v1alpha1.StatefulSet) {
			*rollingUpdateOf(s) = v1alpha1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(1)), Paused: true,
				SelfHealing: v1alpha1.SelfHealingDisabled, OnFailure: v1alpha1.FailureRollback}
		}},
		{"no serviceName", func(s *v1alpha1.StatefulSet) { s.Spec.ServiceName = "" }},
		{"priority rules at the weight bounds, with every operator", priorityRules(priorityRule(-1000), priorityRule(1000,
			roleExpr(metav1.LabelSelectorOpIn, "a", "b"), roleExpr(metav1.LabelSelectorOpNotIn, "c"),
			metav1.LabelSelectorRequirement{Key: "zone", Operator: metav1.LabelSelectorOpExists},
			metav1.LabelSelectorRequirement{Key: "tier", Operator: metav1.LabelSelectorOpDoesNotExist}))},
		{"a 63-character name", func(s *v1alpha1.StatefulSet) { s.Name = strings.Repeat("w", 63) }},
		{"replicas at the maximum", func(s *v1alpha1.StatefulSet) { s.Spec.Replicas = ptr(int32(v1alpha1.MaxReplicas)) }},
		{"InPlace claim updates", func(s *v1alpha1.StatefulSet) {
			s.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
		}},
		{"roles on a prefixed label, with a switchover", func(s *v1alpha1.StatefulSet) {
			s.Spec.Roles = &v1alpha1.Roles{LabelKey: "example.com/role", Values: []v1alpha1.Role{quorumLeader, quorumFollower,
				{Name: "read_replica.1", UpdateOrder: ptr(int32(1000))}}}
			s.Spec.Lifecycle = &v1alpha1.Lifecycle{Switchover: handshakeHook(60, v1alpha1.HookProceed)}
		}},
		{"replaceAfterSeconds beside roles none of which is exclusive", func(s *v1alpha1.StatefulSet) {
			s.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{quorumFollower}}
			s.Spec.NodeFailurePolicy = &v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr(int32(60))}
		}},
		{"replaceAfterSeconds beside an exclusive role, accepted by name", func(s *v1alpha1.StatefulSet) {
			s.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{quorumLeader, quorumFollower}}
			s.Spec.NodeFailurePolicy = &v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr(int32(60)), ReplaceExclusiveRoleHolders: true}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := extended(t, webSet(ns, withClaims()))
			c.mutate(set)
			if _, err := sets.Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

// `kubectl scale osts/web --replicas=1000000` goes through the scale
// subresource, which the API server validates against the schema too:
// the set keeps its replicas and the user reads the maximum.
func TestScalingAnExtendedSetPastTheMaximumIsRefused(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	createExtended(t, extended(t, webSet(ns, replicas(0))))
	_, err := extendedSets(t, ns).Patch(context.Background(), setName, types.MergePatchType, []byte(`{"spec":{"replicas":1000000}}`), metav1.PatchOptions{}, "scale")
	want := "spec.replicas: Invalid value: 1000000: spec.replicas in body should be less than or equal to 100000"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("scaling to a million: %v, want an error saying %q", err, want)
	}
	if got := *getExtended(t, ns).Spec.Replicas; got != 0 {
		t.Errorf("replicas %d after the refused scale, want 0", got)
	}
}
