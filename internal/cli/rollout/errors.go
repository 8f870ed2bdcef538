package rollout

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// classify gives an API error its exit code and, for an unreachable
// server, a message that names the server instead of the request URL.
// Errors that already carry a code pass through.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var coded *exit.Error
	switch {
	case errors.As(err, &coded):
		return err
	case apierrors.IsNotFound(err), errors.Is(err, setops.ErrNotFound):
		return exit.With(NotFound, err)
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return exit.With(Forbidden, err)
	}
	if msg, ok := unreachable(err); ok {
		return exit.With(Unreachable, errors.New(msg))
	}
	return err
}

// unreachable recognises transport failures: refused or timed-out
// connections, unknown hosts, TLS handshakes that never finish.
func unreachable(err error) (string, bool) {
	var uerr *url.Error
	if !errors.As(err, &uerr) {
		return "", false
	}
	var op *net.OpError
	var dns *net.DNSError
	if !errors.As(err, &op) && !errors.As(err, &dns) && !errors.Is(err, syscall.ECONNREFUSED) && !uerr.Timeout() {
		return "", false
	}
	server := uerr.URL
	if u, perr := url.Parse(uerr.URL); perr == nil {
		server = u.Scheme + "://" + u.Host
	}
	return fmt.Sprintf("cannot reach the API server at %s: %v", server, innermost(uerr.Err)), true
}

// innermost unwraps to the first error that explains itself
// ("connect: connection refused") rather than the request it failed.
func innermost(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op
	}
	return err
}
