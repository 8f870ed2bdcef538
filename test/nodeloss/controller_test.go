package nodeloss

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/cli/root"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// The controller's ServiceAccount, as config/ installs it.
const (
	controllerNamespace = "ordinal-system"
	controllerAccount   = "ordinal-controller"
)

// runController installs config/rbac.yaml's ServiceAccount and roles and
// runs the controller in this process, its requests impersonating that
// ServiceAccount: authorized exactly as the controller's pod is.
func runController() error {
	if err := installRBAC(context.Background()); err != nil {
		return err
	}
	path, err := accountKubeconfig()
	if err != nil {
		return err
	}
	cfg := controllercmd.NewConfig()
	cfg.Kubeconfig, cfg.LeaderElect, cfg.MetricsAddress = path, false, ""
	cfg.NodeLossQuarantine = quarantine
	cfg.SimulatedPodsSocket = planetest.Plane().SimulatedPodsSocket()
	if err := cfg.Validate(); err != nil {
		return err
	}
	go func() {
		if err := controllercmd.Run(context.Background(), cfg); err != nil {
			fmt.Fprintln(os.Stderr, "the controller stopped:", err)
		}
	}()
	return nil
}

// installRBAC creates config/rbac.yaml's objects, in its namespace.
func installRBAC(ctx context.Context) error {
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "rbac.yaml"))
	if err != nil {
		return err
	}
	_, err = client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllerNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			return fmt.Errorf("config/rbac.yaml: %w", err)
		}
		if err := create(ctx, obj); err != nil {
			return err
		}
	}
	return nil
}

func create(ctx context.Context, obj runtime.Object) error {
	var err error
	switch o := obj.(type) {
	case *corev1.ServiceAccount:
		_, err = client.CoreV1().ServiceAccounts(controllerNamespace).Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.ClusterRole:
		_, err = client.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.ClusterRoleBinding:
		_, err = client.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.Role:
		_, err = client.RbacV1().Roles(controllerNamespace).Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.RoleBinding:
		_, err = client.RbacV1().RoleBindings(controllerNamespace).Create(ctx, o, metav1.CreateOptions{})
	default:
		return fmt.Errorf("config/rbac.yaml holds a %T", obj)
	}
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// accountKubeconfig writes a copy of the admin kubeconfig whose requests
// impersonate the controller's ServiceAccount.
func accountKubeconfig() (string, error) {
	cfg, err := clientcmd.LoadFromFile(planetest.Plane().KubeconfigPath())
	if err != nil {
		return "", err
	}
	planetest.Impersonate("system:serviceaccount:"+controllerNamespace+":"+controllerAccount,
		"system:serviceaccounts", "system:serviceaccounts:"+controllerNamespace, "system:authenticated")(cfg)
	path := filepath.Join(planetest.DataDir(), "controller.kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

// optIn lets the controller delete claims in namespace ns, as
// config/claim-deletion-rolebinding.yaml does: a RoleBinding of
// ordinal-claim-deleter.
func optIn(t *testing.T, ns string) {
	t.Helper()
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: planner.ClaimDeleterRole, Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: planner.ClaimDeleterRole},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: controllerAccount, Namespace: controllerNamespace}}}
	if _, err := client.RbacV1().RoleBindings(ns).Create(context.Background(), rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// rolloutPlan runs `ordinal rollout plan osts/NAME` and returns what it
// prints.
func rolloutPlan(t *testing.T, ns, name string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := root.Main([]string{"rollout", "plan", "osts/" + name, "-n", ns, "--kubeconfig", kubeconfig}, &out, &errOut); code != 0 {
		t.Fatalf("ordinal rollout plan exited %d: %s", code, errOut.String())
	}
	return out.String()
}
