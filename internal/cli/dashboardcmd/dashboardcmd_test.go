package dashboardcmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

const kubeconfigYAML = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: u
  user: {token: not-a-real-token}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`

func TestTheDashboardActsAsTheKubeconfigsUserOrTheOneOfAs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfigYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want rest.ImpersonationConfig
		err  string
	}{
		{"without --as, the kubeconfig's user", nil, rest.ImpersonationConfig{}, ""},
		{"--as impersonates the user", []string{"--as", "jane"}, rest.ImpersonationConfig{UserName: "jane"}, ""},
		{"--as-group adds groups", []string{"--as", "jane", "--as-group", "viewers", "--as-group", "auditors"},
			rest.ImpersonationConfig{UserName: "jane", Groups: []string{"viewers", "auditors"}}, ""},
		{"--as-group alone is refused", []string{"--as-group", "viewers"}, rest.ImpersonationConfig{}, "--as-group [viewers] needs --as"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The command's flags, parsed into the identity they fill.
			cmd := New()
			if err := cmd.ParseFlags(append([]string{"--kubeconfig", path}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			id := identity{kubeconfig: path}
			id.as, _ = cmd.Flags().GetString("as")
			id.asGroups, _ = cmd.Flags().GetStringArray("as-group")
			rc, err := id.restConfig()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("restConfig() = %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rc.BearerToken != "not-a-real-token" || rc.Host != "https://127.0.0.1:6443" {
				t.Errorf("rest config %s with token %q is not the kubeconfig's", rc.Host, rc.BearerToken)
			}
			got := rc.Impersonate
			if got.UserName != tt.want.UserName || !reflect.DeepEqual(got.Groups, tt.want.Groups) || len(got.Extra) != 0 || got.UID != "" {
				t.Errorf("impersonation %+v, want %+v", rc.Impersonate, tt.want)
			}
		})
	}
}
