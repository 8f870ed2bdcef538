package setops

import "errors"

// ErrNotFound marks a missing revision or missing history to roll back
// to; the set itself missing is the API's NotFound error.
var ErrNotFound = errors.New("not found")

// notFound is an error a user reads as is and that matches ErrNotFound.
type notFound struct{ msg string }

func (e *notFound) Error() string        { return e.msg }
func (e *notFound) Is(target error) bool { return target == ErrNotFound }
