package shape

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// Clients reach the source cluster. Read makes only get and list
// requests; the caller's clients should go through a read-only Counter
// all the same.
type Clients struct {
	Kube kubernetes.Interface
	// Extended reaches the extended kind; nil when the cluster does not
	// serve it.
	Extended *ostsclient.Client
}

// Shape is the source as read: the set and what shapes its rollout.
type Shape struct {
	Namespace string
	// Set is the apps/v1 set as read, or the apps/v1 view of Extended.
	Set *appsv1.StatefulSet
	// Extended is the extended set as read; nil for apps/v1.
	Extended *v1alpha1.StatefulSet
	Pods     []*corev1.Pod
	// Claims are the set's claims (of its claim templates, by the pods'
	// names and beyond) and those its template names.
	Claims         []*corev1.PersistentVolumeClaim
	StorageClasses []*storagev1.StorageClass
	Budgets        []*policyv1.PodDisruptionBudget
	Services       []*corev1.Service
	// PriorityClasses are those the template names.
	PriorityClasses []*schedulingv1.PriorityClass
	Nodes           []*corev1.Node
	// Used are the requests of the nodes' other pods, by node; nil when
	// they could not be read.
	Used map[string]corev1.ResourceList
	// Events are the namespace's events about the set and its pods.
	Events        []*corev1.Event
	ServerVersion string
	// Notes say what could not be read, and what stands in for it.
	Notes []string
}

// Kind is the set's kind.
func (s *Shape) Kind() setops.Kind {
	if s.Extended != nil {
		return setops.ExtendedKind
	}
	return setops.AppsV1
}

// Read reads the set ref names in namespace, then its pods and claims
// (both required) and, where the identity may read them, everything else
// of its shape; what it may not read becomes a note.
func Read(ctx context.Context, c Clients, namespace string, ref setops.Ref) (*Shape, error) {
	t, err := setops.Find(ctx, c.Kube, c.Extended, namespace, ref)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", ref.Name, err)
	}
	s := &Shape{Namespace: namespace, Set: t.Set, Extended: t.Extended}
	if s.Pods, err = t.Pods(ctx); err != nil {
		return nil, err
	}
	if err := s.readClaims(ctx, c.Kube); err != nil {
		return nil, err
	}
	for _, read := range []func(context.Context, kubernetes.Interface) error{
		s.readVersion, s.readStorageClasses, s.readBudgets, s.readServices, s.readPriorityClasses, s.readNodes, s.readUsed, s.readEvents,
	} {
		if err := read(ctx, c.Kube); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s.Notes = append(s.Notes, err.Error())
		}
	}
	return s, nil
}

// optional turns a refused read into a note saying what stands in.
func optional(what, instead string, err error) error {
	if err == nil {
		return nil
	}
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("may not read %s: %s", what, instead)
	}
	return fmt.Errorf("could not read %s (%w): %s", what, err, instead)
}

func (s *Shape) readVersion(_ context.Context, c kubernetes.Interface) error {
	v, err := c.Discovery().ServerVersion()
	if err != nil {
		return optional("the server's version", "the rehearsal plays Kubernetes 1.37.2's controllers", err)
	}
	s.ServerVersion = v.GitVersion
	return nil
}

// readClaims keeps the namespace's claims of the set's claim templates
// and those its pod template names.
func (s *Shape) readClaims(ctx context.Context, c kubernetes.Interface) error {
	wanted := templateClaims(s.Set.Spec.Template.Spec)
	if len(s.Set.Spec.VolumeClaimTemplates) == 0 && len(wanted) == 0 {
		return nil
	}
	list, err := c.CoreV1().PersistentVolumeClaims(s.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing the claims of %s: %w", s.Set.Name, err)
	}
	for i := range list.Items {
		claim := &list.Items[i]
		if wanted[claim.Name] || ofTemplates(s.Set, claim.Name) {
			s.Claims = append(s.Claims, claim)
		}
	}
	return nil
}

func (s *Shape) readStorageClasses(ctx context.Context, c kubernetes.Interface) error {
	var errs []error
	for _, name := range classNames(s) {
		class, err := c.StorageV1().StorageClasses().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			errs = append(errs, optional("StorageClass "+name, "the copy's class binds at once and allows expansion", err))
			continue
		}
		s.StorageClasses = append(s.StorageClasses, class)
	}
	return errors.Join(errs...)
}

func (s *Shape) readBudgets(ctx context.Context, c kubernetes.Interface) error {
	list, err := c.PolicyV1().PodDisruptionBudgets(s.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return optional("PodDisruptionBudgets", "the copy has none", err)
	}
	pods := labels.Set(s.Set.Spec.Template.Labels)
	for i := range list.Items {
		b := &list.Items[i]
		if sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector); err == nil && !sel.Empty() && sel.Matches(pods) {
			s.Budgets = append(s.Budgets, b)
		}
	}
	return nil
}

func (s *Shape) readServices(ctx context.Context, c kubernetes.Interface) error {
	list, err := c.CoreV1().Services(s.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return optional("Services", "the copy has only its governing Service, headless", err)
	}
	pods := labels.Set(s.Set.Spec.Template.Labels)
	for i := range list.Items {
		svc := &list.Items[i]
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		if svc.Name == s.Set.Spec.ServiceName || (len(svc.Spec.Selector) > 0 && sel.Matches(pods)) {
			s.Services = append(s.Services, svc)
		}
	}
	return nil
}

func (s *Shape) readPriorityClasses(ctx context.Context, c kubernetes.Interface) error {
	name := s.Set.Spec.Template.Spec.PriorityClassName
	if name == "" {
		return nil
	}
	pc, err := c.SchedulingV1().PriorityClasses().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return optional("PriorityClass "+name, "the copy's has value 0", err)
	}
	s.PriorityClasses = append(s.PriorityClasses, pc)
	return nil
}

func (s *Shape) readNodes(ctx context.Context, c kubernetes.Interface) error {
	list, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return optional("Nodes", "the copy has a node for each node the pods run on, labelled as the template selects", err)
	}
	for i := range list.Items {
		s.Nodes = append(s.Nodes, &list.Items[i])
	}
	return nil
}

// readUsed sums, per node, the requests of the pods other than the set's
// that still run there: the room they take from the copy's nodes.
func (s *Shape) readUsed(ctx context.Context, c kubernetes.Interface) error {
	if len(s.Nodes) == 0 {
		return nil
	}
	list, err := c.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return optional("the pods of every namespace", "the copy's nodes hold only the set's pods", err)
	}
	own := map[string]bool{}
	for _, p := range s.Pods {
		own[p.Namespace+"/"+p.Name] = true
	}
	var others []*corev1.Pod
	for i := range list.Items {
		if p := &list.Items[i]; !own[p.Namespace+"/"+p.Name] {
			others = append(others, p)
		}
	}
	s.Used = usedByNode(others)
	return nil
}

func (s *Shape) readEvents(ctx context.Context, c kubernetes.Interface) error {
	list, err := c.CoreV1().Events(s.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return optional("events", "shutdowns are played from the stated defaults", err)
	}
	pods := map[string]bool{}
	for _, p := range s.Pods {
		pods[p.Name] = true
	}
	for i := range list.Items {
		ev := &list.Items[i]
		o := ev.InvolvedObject
		if (o.Kind == "StatefulSet" && o.Name == s.Set.Name) || (o.Kind == "Pod" && (pods[o.Name] || ofSet(s.Set.Name, o.Name))) {
			s.Events = append(s.Events, ev)
		}
	}
	return nil
}
