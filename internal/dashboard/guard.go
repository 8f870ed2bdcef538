package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
)

// Header names of the CSRF protection.
const (
	csrfHeader = "X-Ordinal-CSRF"
)

// guard authenticates every request with the server's token and protects
// state-changing ones against cross-site requests.
type guard struct {
	token  string
	csrf   string
	cookie string
	// hosts are the Host headers the server answers to (DNS rebinding);
	// nil accepts any, for --allow-remote.
	hosts  map[string]bool
	secure bool
}

// newGuard makes a random token. The cookie's name carries the port,
// since browsers share cookies between ports of one host.
func newGuard(port string, hosts map[string]bool, secure bool) (*guard, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("making the dashboard token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte("csrf"))
	return &guard{token: token, csrf: hex.EncodeToString(mac.Sum(nil)), cookie: "ordinal-dashboard-" + port, hosts: hosts, secure: secure}, nil
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// wrap admits a request only with the token (query on a GET, cookie, or
// bearer header) and, for anything but GET and HEAD, only as a same-origin
// POST carrying the CSRF header (a bearer token, which a browser never
// adds by itself, needs none).
func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header())
		if g.hosts != nil && !g.hosts[r.Host] {
			http.Error(w, "unexpected Host header: open the URL ordinal printed", http.StatusForbidden)
			return
		}
		read := r.Method == http.MethodGet || r.Method == http.MethodHead
		if q := r.URL.Query().Get("token"); q != "" && read {
			g.admitByQuery(w, r, q)
			return
		}
		bearer, hasBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		cookie, _ := r.Cookie(g.cookie)
		switch {
		case hasBearer && !equal(bearer, g.token), !hasBearer && cookie != nil && !equal(cookie.Value, g.token):
			http.Error(w, "wrong token: open the URL ordinal printed", http.StatusForbidden)
			return
		case !hasBearer && cookie == nil:
			http.Error(w, "this dashboard needs its token: open the URL ordinal printed (it ends in ?token=…)", http.StatusUnauthorized)
			return
		}
		if !read {
			if err := g.checkWrite(r, hasBearer); err != nil {
				http.Error(w, err.Error(), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// admitByQuery sets the cookie and redirects to the same page without the
// token, so it stays out of the address bar, history and Referer.
func (g *guard) admitByQuery(w http.ResponseWriter, r *http.Request, token string) {
	if !equal(token, g.token) {
		http.Error(w, "wrong token: open the URL ordinal printed", http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: g.cookie, Value: g.token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: g.secure,
	})
	u := *r.URL
	q := u.Query()
	q.Del("token")
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
}

// checkWrite refuses state changes that are not same-origin POSTs with
// the CSRF header.
func (g *guard) checkWrite(r *http.Request, bearer bool) error {
	if r.Method != http.MethodPost {
		return fmt.Errorf("%s is not allowed: actions are POST requests", r.Method)
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return fmt.Errorf("cross-site request refused (Sec-Fetch-Site: %s)", site)
	}
	if origin := r.Header.Get("Origin"); origin != "" && origin != g.origin(r) {
		return fmt.Errorf("cross-origin request refused (Origin: %s)", origin)
	}
	if !bearer && !equal(r.Header.Get(csrfHeader), g.csrf) {
		return fmt.Errorf("missing or wrong %s header: actions come from the dashboard's own page", csrfHeader)
	}
	return nil
}

func (g *guard) origin(r *http.Request) string {
	if g.secure {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// securityHeaders keep the page from loading anything but its own files,
// from being framed, and the token from leaking through Referer.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}
