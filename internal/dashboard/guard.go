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

// guard authenticates every request with the server's token or a session
// it issued for the token, and protects state-changing ones against
// cross-site requests.
//
// The token never goes into a cookie: browsers send a cookie of 127.0.0.1
// to every port of the host, so any local server the user visits would
// receive it. The cookie holds a session instead, a random id with its
// HMAC under a key derived from the token: valid only as a cookie of this
// process (a new run has a new token, so every earlier session fails),
// never as the token in a URL or an Authorization header.
type guard struct {
	token string
	// sessionKey signs session ids; derived from the token.
	sessionKey []byte
	csrf       string
	cookie     string
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
	return &guard{
		token: token, sessionKey: derive(token, "session"), csrf: hex.EncodeToString(derive(token, "csrf")),
		cookie: "ordinal-dashboard-" + port, hosts: hosts, secure: secure,
	}, nil
}

// derive is HMAC-SHA256(key, purpose): one independent value per purpose.
func derive(key, purpose string) []byte {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(purpose))
	return mac.Sum(nil)
}

// sessionIDBytes is the size of a session's random id.
const sessionIDBytes = 16

// newSession returns a cookie value: a fresh random id and its HMAC, both
// base64, joined by a dot.
func (g *guard) newSession() (string, error) {
	id := make([]byte, sessionIDBytes)
	if _, err := rand.Read(id); err != nil {
		return "", fmt.Errorf("making a dashboard session: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(id) + "." + base64.RawURLEncoding.EncodeToString(g.sign(id)), nil
}

func (g *guard) sign(id []byte) []byte {
	mac := hmac.New(sha256.New, g.sessionKey)
	mac.Write(id)
	return mac.Sum(nil)
}

// validSession reports whether value is a session this guard issued.
func (g *guard) validSession(value string) bool {
	rawID, rawMAC, ok := strings.Cut(value, ".")
	if !ok {
		return false
	}
	id, err := base64.RawURLEncoding.DecodeString(rawID)
	if err != nil || len(id) != sessionIDBytes {
		return false
	}
	mac, err := base64.RawURLEncoding.DecodeString(rawMAC)
	return err == nil && hmac.Equal(mac, g.sign(id))
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// wrap admits a request only with the token (query on a GET, or bearer
// header) or a session cookie and, for anything but GET and HEAD, only as a same-origin
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
		case hasBearer && !equal(bearer, g.token):
			http.Error(w, "wrong token: open the URL ordinal printed", http.StatusForbidden)
			return
		case !hasBearer && cookie != nil && !g.validSession(cookie.Value):
			http.Error(w, "unknown session (from an earlier run of this dashboard?): open the URL ordinal printed", http.StatusForbidden)
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

// admitByQuery trades the token for a new session cookie and redirects to
// the same page without the token, so it stays out of the address bar,
// history and Referer.
func (g *guard) admitByQuery(w http.ResponseWriter, r *http.Request, token string) {
	if !equal(token, g.token) {
		http.Error(w, "wrong token: open the URL ordinal printed", http.StatusForbidden)
		return
	}
	session, err := g.newSession()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: g.cookie, Value: session, Path: "/", HttpOnly: true,
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
