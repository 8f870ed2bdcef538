// Package exit defines ordinal's exit codes and the errors that carry them.
package exit

import "errors"

// Exit codes shared by every command. Commands document further codes.
const (
	OK          = 0
	Failure     = 1
	UsageError  = 2
	Interrupted = 130
)

// Error carries an exit code with an error.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Usage marks err as a usage error (exit 2).
func Usage(err error) error { return &Error{Code: UsageError, Err: err} }

// With marks err with code.
func With(code int, err error) error { return &Error{Code: code, Err: err} }

// Code returns the exit code for err: the code of the first *Error in its
// chain, else Failure.
func Code(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Failure
}
