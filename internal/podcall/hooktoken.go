package podcall

import (
	"context"
	"fmt"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// hookTokenLife is how long a caller token is asked to live: the API
// server's minimum. A token is renewed once less than hookTokenRenew of
// it is left, so a call never carries one about to expire.
const (
	hookTokenLife  = 10 * time.Minute
	hookTokenRenew = 3 * time.Minute
)

// hookTokens requests and caches the caller tokens of hook calls: one per
// namespace of the sets calling, each with the audiences
// HookTokenAudience and HookTokenAudience/<namespace>, so that a token a
// receiver got for one namespace's set fails a TokenReview that asks for
// another namespace's audience.
type hookTokens struct {
	client kubernetes.Interface
	sa     types.NamespacedName
	now    func() time.Time

	mu     sync.Mutex
	tokens map[string]hookToken
}

type hookToken struct {
	token   string
	expires time.Time
}

// get returns the token for calls of namespace's sets.
func (t *hookTokens) get(ctx context.Context, namespace string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	for ns, tok := range t.tokens {
		if !now.Before(tok.expires) {
			delete(t.tokens, ns)
		}
	}
	if tok, ok := t.tokens[namespace]; ok && tok.expires.Sub(now) > hookTokenRenew {
		return tok.token, nil
	}
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences:         []string{v1alpha1.HookTokenAudience, v1alpha1.HookTokenAudience + "/" + namespace},
		ExpirationSeconds: new(int64(hookTokenLife / time.Second)),
	}}
	resp, err := t.client.CoreV1().ServiceAccounts(t.sa.Namespace).CreateToken(ctx, t.sa.Name, req, metav1.CreateOptions{})
	if err != nil {
		return "", hookFailed(fmt.Sprintf("no caller token: the TokenRequest for ServiceAccount %s failed", t.sa), err)
	}
	if t.tokens == nil {
		t.tokens = map[string]hookToken{}
	}
	t.tokens[namespace] = hookToken{token: resp.Status.Token, expires: resp.Status.ExpirationTimestamp.Time}
	return resp.Status.Token, nil
}
