package controllercmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// Cache lifetimes of the API server's answers. A scraper every 15–30 s
// costs about one TokenReview and one SubjectAccessReview a minute; a
// revoked token or binding stops working within a minute; a refusal is
// asked again after ten seconds, so a binding just made works soon.
const (
	allowTTL = time.Minute
	denyTTL  = 10 * time.Second
	// cacheEntries bounds each cache: a flood of made-up tokens evicts
	// older answers rather than growing memory.
	cacheEntries = 1024
)

// delegatedAuth lets a request through only if the API server says who
// sent it (a TokenReview of its bearer token) and that this user may make
// it (a SubjectAccessReview of the non-resource URL and verb): the
// delegated authentication and authorization of Kubernetes' own
// components' secure ports, for bearer tokens. Answers are cached, by a
// hash of the token (never the token itself) and by the whole review.
type delegatedAuth struct {
	client    kubernetes.Interface
	users     *utilcache.LRUExpireCache
	decisions *utilcache.LRUExpireCache
}

func newDelegatedAuth(client kubernetes.Interface) *delegatedAuth {
	return &delegatedAuth{client: client,
		users: utilcache.NewLRUExpireCache(cacheEntries), decisions: utilcache.NewLRUExpireCache(cacheEntries)}
}

// user is what a TokenReview said of a token; nil means unauthenticated.
type user struct {
	name, uid string
	groups    []string
	extra     map[string]authorizationv1.ExtraValue
}

// wrap guards next: 401 without a token the API server accepts, 403 when
// its user may not make the request, 500 when the API server cannot be
// asked (the cause is logged, not told to the caller).
func (a *delegatedAuth) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r)
		if !ok {
			unauthorized(w)
			return
		}
		u, err := a.authenticate(r.Context(), token)
		if err != nil {
			klog.FromContext(r.Context()).Error(err, "Cannot authenticate a metrics request")
			http.Error(w, "cannot authenticate the request", http.StatusInternalServerError)
			return
		}
		if u == nil {
			unauthorized(w)
			return
		}
		verb := strings.ToLower(r.Method)
		allowed, err := a.authorize(r.Context(), u, verb, r.URL.Path)
		if err != nil {
			klog.FromContext(r.Context()).Error(err, "Cannot authorize a metrics request", "user", u.name)
			http.Error(w, "cannot authorize the request", http.StatusInternalServerError)
			return
		}
		if !allowed {
			http.Error(w, fmt.Sprintf("forbidden: user %q may not %s path %q", u.name, verb, r.URL.Path), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="ordinal-controller"`)
	http.Error(w, "unauthorized: send a bearer token the API server accepts", http.StatusUnauthorized)
}

// bearerToken is the token of an "Authorization: Bearer <token>" header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// authenticate asks the API server who the token belongs to; nil, nil
// when it belongs to nobody.
func (a *delegatedAuth) authenticate(ctx context.Context, token string) (*user, error) {
	sum := sha256.Sum256([]byte(token))
	key := hex.EncodeToString(sum[:])
	if v, ok := a.users.Get(key); ok {
		return v.(*user), nil
	}
	review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}
	got, err := a.client.AuthenticationV1().TokenReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating a TokenReview: %w", err)
	}
	if !got.Status.Authenticated {
		a.users.Add(key, (*user)(nil), denyTTL)
		return nil, nil
	}
	u := &user{name: got.Status.User.Username, uid: got.Status.User.UID, groups: got.Status.User.Groups,
		extra: map[string]authorizationv1.ExtraValue{}}
	for k, v := range got.Status.User.Extra {
		u.extra[k] = authorizationv1.ExtraValue(v)
	}
	a.users.Add(key, u, allowTTL)
	return u, nil
}

// authorize asks the API server whether u may make verb on the
// non-resource URL path.
func (a *delegatedAuth) authorize(ctx context.Context, u *user, verb, path string) (bool, error) {
	spec := authorizationv1.SubjectAccessReviewSpec{User: u.name, UID: u.uid, Groups: u.groups, Extra: u.extra,
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb}}
	key := decisionKey(spec)
	if v, ok := a.decisions.Get(key); ok {
		return v.(bool), nil
	}
	got, err := a.client.AuthorizationV1().SubjectAccessReviews().Create(ctx,
		&authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("creating a SubjectAccessReview: %w", err)
	}
	ttl := denyTTL
	if got.Status.Allowed {
		ttl = allowTTL
	}
	a.decisions.Add(key, got.Status.Allowed, ttl)
	return got.Status.Allowed, nil
}

// decisionKey identifies a review by everything it asks: two users, or
// one user with other groups, never share an answer.
func decisionKey(s authorizationv1.SubjectAccessReviewSpec) string {
	h := sha256.New()
	field := func(v string) { fmt.Fprintf(h, "%d:%s;", len(v), v) }
	field(s.User)
	field(s.UID)
	field(s.NonResourceAttributes.Verb)
	field(s.NonResourceAttributes.Path)
	groups := append([]string(nil), s.Groups...)
	sort.Strings(groups)
	fmt.Fprintf(h, "groups %d;", len(groups))
	for _, g := range groups {
		field(g)
	}
	keys := make([]string, 0, len(s.Extra))
	for k := range s.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(h, "extra %d;", len(keys))
	for _, k := range keys {
		field(k)
		fmt.Fprintf(h, "%d;", len(s.Extra[k]))
		for _, v := range s.Extra[k] {
			field(v)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
