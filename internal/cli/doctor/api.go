package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
)

const checkAPIName = "API server"

// checkAPI asks for the server's version: the one check without which no
// other can run. Its error carries exit code Unreachable.
func (d *Doctor) checkAPI(ctx context.Context) (Result, error) {
	v, err := d.client.Discovery().ServerVersion()
	if err == nil {
		return Result{Check: checkAPIName, Status: OK, Message: fmt.Sprintf("%s, kubernetes %s", d.host, v.GitVersion)}, nil
	}
	var msg string
	switch {
	case apierrors.IsUnauthorized(err):
		msg = fmt.Sprintf("the API server at %s refused the kubeconfig's credentials (401 Unauthorized)", d.host)
	case apierrors.IsForbidden(err):
		msg = fmt.Sprintf("the API server at %s does not let your user read its version: %v", d.host, err)
	default:
		msg = fmt.Sprintf("cannot reach the API server at %s: %v", d.host, transportCause(err))
	}
	if ctx.Err() != nil {
		msg = fmt.Sprintf("interrupted while reaching the API server at %s", d.host)
	}
	return Result{Check: checkAPIName, Status: Fail, Message: msg}, exit.With(Unreachable, errors.New(msg))
}

// transportCause drops the request URL from a transport error, keeping
// what went wrong ("dial tcp 127.0.0.1:1: connect: connection refused").
func transportCause(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return uerr.Err
	}
	return err
}

// couldNot is the result of a check that an API error stopped: Unknown for
// a missing permission, which the error text names, else Fail.
func couldNot(check, doing string, err error) Result {
	if apierrors.IsForbidden(err) {
		return Result{Check: check, Status: Unknown, Message: fmt.Sprintf("cannot check: %s is forbidden: %s", doing, forbiddenReason(err))}
	}
	return Result{Check: check, Status: Unknown, Message: fmt.Sprintf("cannot check: %s: %v", doing, transportCause(err))}
}

// forbiddenReason is the API server's own sentence, which names the user,
// verb and resource.
func forbiddenReason(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Message != "" {
		return status.Status().Message
	}
	return err.Error()
}
