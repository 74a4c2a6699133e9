package shardkey

import (
	"errors"
	"fmt"
)

// InputError is a problem at a place in an input file. It prints as
// "file:line: field: message" (parts that are unknown are left out), in the
// manner of benchfmt.SyntaxError.
type InputError struct {
	File  string // file name as the user gave it
	Line  int    // 1-based line; 0 when not known
	Field string // column, key or field name; "" when not applicable
	Err   error
}

func (e *InputError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Field != "" {
		if s != "" {
			s += ": "
		}
		s += e.Field
	}
	if s != "" {
		s += ": "
	}
	return s + e.Err.Error()
}

func (e *InputError) Unwrap() error { return e.Err }

// Errorf returns an *InputError for file, line and field.
func Errorf(file string, line int, field, format string, args ...any) error {
	return &InputError{File: file, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
}

// ErrUsage marks errors in how a command was called (bad flags, a missing
// argument); the command exits with status 2 for them and 1 for others.
var ErrUsage = errors.New("usage")

// UsageError wraps a message as a usage error.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string        { return e.Msg }
func (e *UsageError) Is(target error) bool { return target == ErrUsage }
