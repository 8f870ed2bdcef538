package planetest

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Kubeconfig writes a copy of the plane's admin kubeconfig, changed by edit
// (another server, other credentials, impersonation …), into the test's
// temporary directory with mode 0600 and returns its path.
func Kubeconfig(t testing.TB, edit func(*clientcmdapi.Config)) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(Plane().KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Impersonate returns an edit for Kubeconfig whose requests act as user in
// groups, authorized exactly as that user would be.
func Impersonate(user string, groups ...string) func(*clientcmdapi.Config) {
	return func(cfg *clientcmdapi.Config) {
		for _, auth := range cfg.AuthInfos {
			auth.Impersonate, auth.ImpersonateGroups = user, groups
		}
	}
}
