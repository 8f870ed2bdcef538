package migrate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// Clients reach both kinds.
type Clients struct {
	Kube     kubernetes.Interface
	Extended *ostsclient.Client
}

// Plan is one migration, checked and ready to run: the set as read, the
// set of the other kind to create, and what the new set must adopt.
type Plan struct {
	// From and To are the old and the new kind.
	From, To setops.Kind
	// Namespace and Name name the set in both kinds.
	Namespace, Name string
	// CurrentRevision, UpdateRevision and CollisionCount are the old set's
	// rollout state; the new set gets the first and the last.
	CurrentRevision, UpdateRevision string
	CollisionCount                  *int32
	// Pods and Revisions are what the old set controls.
	Pods      []*corev1.Pod
	Revisions []*appsv1.ControllerRevision
	// Overridden are the reasons to refuse that --force overrode: a
	// rollout in progress, extended-only settings apps/v1 drops.
	Overridden []string
	// Losses are the settings apps/v1 will not keep although the
	// migration goes on: protections, such as respecting
	// PodDisruptionBudgets, that apps/v1 does not give.
	Losses []string

	uid             types.UID
	resourceVersion string
	// read is the old set as Prepare read it.
	read     setState
	selector labels.Selector
	// original is the old set as read, next the new one to create.
	original, next any
	from, to       sets
}

// Refused is a migration the checks turned down; Reasons say why.
type Refused struct {
	Ref     string
	Reasons []string
}

// Error lists the reasons, one a line, and the ways out.
func (r *Refused) Error() string {
	return fmt.Sprintf("not migrating %s:\n  - %s\nwait for the rollout to finish or change those settings, or pass --force to migrate anyway",
		r.Ref, strings.Join(r.Reasons, "\n  - "))
}

// Prepare reads the set ref names, checks it can be migrated to kind to
// (setops.AnyKind: the other kind) and asks the API server, in a dry run,
// whether it accepts the new set, and whether the user may make every
// call the migration makes. Nothing is changed. A set controlled by
// another object (an operator's) is refused outright: its owner would
// make it again. force turns the
// refusals (a rollout in progress, extended-only settings not at their
// defaults) into Plan.Overridden. A migration to apps/v1 that would at
// once move a pod, skip a hook or change storage is refused (Unsafe)
// even then.
func Prepare(ctx context.Context, c Clients, namespace string, ref setops.Ref, to setops.Kind, force bool) (*Plan, error) {
	t, err := setops.Find(ctx, c.Kube, c.Extended, namespace, ref)
	if err != nil {
		return nil, err
	}
	if owner := metav1.GetControllerOf(t.Set); owner != nil {
		return nil, fmt.Errorf("%s is controlled by %s %s, which would make it again once deleted: change its kind there", t.Ref(), owner.Kind, owner.Name)
	}
	p := &Plan{From: t.Kind(), To: to, Namespace: namespace, Name: t.Set.Name}
	if err := p.kinds(c, t); err != nil {
		return nil, err
	}
	if err := p.checkAccess(ctx, c); err != nil {
		return nil, err
	}
	if p.Pods, err = t.Pods(ctx); err != nil {
		return nil, err
	}
	if p.Revisions, err = t.Revisions(ctx); err != nil {
		return nil, err
	}
	reasons := p.refusals(t)
	if p.To == setops.AppsV1 {
		p.Losses = losses(t.Extended)
		held, err := p.budgetRefusals(ctx, c, t.Extended)
		if err != nil {
			return nil, err
		}
		reasons = append(reasons, held...)
		claims, err := t.Claims(ctx)
		if err != nil {
			return nil, err
		}
		if h := hazards(t.Extended, p.Pods, claims); len(h) > 0 {
			return nil, &Unsafe{Ref: t.Ref(), Reasons: h, Overridable: reasons}
		}
	}
	if len(reasons) > 0 {
		if !force {
			return nil, &Refused{Ref: t.Ref(), Reasons: reasons}
		}
		p.Overridden = reasons
	}
	return p, p.destinationFree(ctx)
}

// kinds fills in the two kinds' clients and objects.
func (p *Plan) kinds(c Clients, t *setops.Target) error {
	if p.To == setops.AnyKind {
		p.To = setops.ExtendedKind
		if p.From == setops.ExtendedKind {
			p.To = setops.AppsV1
		}
	}
	if p.To == p.From {
		return fmt.Errorf("%s is already of kind %s", t.Ref(), p.To.APIVersion())
	}
	if t.Set.DeletionTimestamp != nil {
		return fmt.Errorf("%s is being deleted", t.Ref())
	}
	st := t.Set.Status
	p.CurrentRevision, p.UpdateRevision, p.CollisionCount = st.CurrentRevision, st.UpdateRevision, st.CollisionCount
	p.uid, p.resourceVersion = t.Set.UID, t.Set.ResourceVersion
	p.read = stateOf(&t.Set.ObjectMeta, st.ObservedGeneration, st.CurrentRevision, st.UpdateRevision, st.CollisionCount)
	sel, err := setops.Selector(t.Set)
	if err != nil {
		return err
	}
	p.selector = sel
	if c.Extended == nil {
		return fmt.Errorf("no client for %s", setops.ExtendedKind.Resource())
	}
	apps, ext := appsSets{client: c.Kube, namespace: p.Namespace}, extSets{client: c.Extended.StatefulSets(p.Namespace)}
	if p.From == setops.ExtendedKind {
		p.from, p.to, p.original, p.next = ext, apps, t.Extended, toAppsV1(t.Extended)
		return nil
	}
	next, err := toExtended(t.Set)
	p.from, p.to, p.original, p.next = apps, ext, t.Set, next
	return err
}

// refusals are the reasons not to migrate now: a rollout in progress, and
// for apps/v1 the extended-only settings it would drop.
func (p *Plan) refusals(t *setops.Target) []string {
	var out []string
	st, want := t.Set.Status, *t.Set.Spec.Replicas
	if st.ObservedGeneration < t.Set.Generation {
		out = append(out, fmt.Sprintf("the controller has not observed generation %d yet (status is at %d)", t.Set.Generation, st.ObservedGeneration))
	}
	if st.CurrentRevision != st.UpdateRevision {
		out = append(out, fmt.Sprintf("a rollout is in progress: currentRevision %s, updateRevision %s", st.CurrentRevision, st.UpdateRevision))
	}
	if st.UpdateRevision != "" && (p.podsBehind() > 0 || st.UpdatedReplicas != want) {
		out = append(out, fmt.Sprintf("not all pods are updated: %d of %d at update revision %s", st.UpdatedReplicas, want, st.UpdateRevision))
	}
	if p.To == setops.AppsV1 {
		out = append(out, extendedOnly(t.Extended)...)
	}
	return out
}

// budgetRefusals refuses a set that respects PodDisruptionBudgets while a
// budget of its namespace selects one of its pods: apps/v1 would delete
// those pods for its rolling update without asking that budget. A budget
// with an empty selector selects every pod of its namespace (policy/v1).
func (p *Plan) budgetRefusals(ctx context.Context, c Clients, set *v1alpha1.StatefulSet) ([]string, error) {
	if !respectsBudgets(&set.Spec) || len(p.Pods) == 0 {
		return nil, nil
	}
	list, err := c.Kube.PolicyV1().PodDisruptionBudgets(p.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing the PodDisruptionBudgets of namespace %s: %w", p.Namespace, err)
	}
	var names []string
	for _, b := range list.Items {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil {
			continue
		}
		if slices.ContainsFunc(p.Pods, func(pod *corev1.Pod) bool { return sel.Matches(labels.Set(pod.Labels)) }) {
			names = append(names, b.Name)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	return []string{fmt.Sprintf("spec.updateStrategy.rollingUpdate.respectDisruptionBudgets is true and PodDisruptionBudget %s selects pods of %s: "+
		"apps/v1 deletes the pods of its rolling update without asking it; set the field to false to accept that", strings.Join(names, ", "), set.Name)}, nil
}

// podsBehind counts the pods not at the update revision.
func (p *Plan) podsBehind() int {
	n := 0
	for _, pod := range p.Pods {
		if pod.Labels[appsv1.ControllerRevisionHashLabelKey] != p.UpdateRevision {
			n++
		}
	}
	return n
}

// destinationFree checks that no set of the new kind has the name, and
// that the API server accepts the new set (a dry-run create), so that
// the old set is never deleted for a new one that cannot be made.
func (p *Plan) destinationFree(ctx context.Context) error {
	_, err := p.to.state(ctx, p.Name)
	switch {
	case err == nil:
		return fmt.Errorf("%s/%s already exists: delete it or migrate under another name", p.To.Resource(), p.Name)
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("checking for %s/%s: %w", p.To.Resource(), p.Name, err)
	}
	if _, err := p.to.create(ctx, p.next, true); err != nil {
		return fmt.Errorf("the API server would not create %s/%s: %w", p.To.Resource(), p.Name, err)
	}
	return nil
}

// FromRef and ToRef name the old and the new set as kubectl does.
func (p *Plan) FromRef() string { return p.From.Resource() + "/" + p.Name }

// ToRef names the new set as kubectl does.
func (p *Plan) ToRef() string { return p.To.Resource() + "/" + p.Name }
