// Package dberr turns the driver's errors into the engine's at one place: an error of a call
// whose context ended wraps the context's error (a statement the cancel request stopped
// answers 57014, which says nothing of why); a statement the server's statement_timeout
// stopped wraps ErrTimeout; a write to a read-only server (a standby, or
// default_transaction_read_only) wraps ErrReadOnly. Every path that can be cancelled
// returns through Interpret, so a caller (and the HTTP server) tells a deadline from a
// failure with errors.Is.
package dberr

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrTimeout is a statement the server stopped at its statement_timeout.
var ErrTimeout = errors.New("recall: timed out")

// ErrReadOnly is a write refused because the server is read-only.
var ErrReadOnly = errors.New("recall: the database is read-only")

// Interpret returns err as the engine reports it, prefixed with op ("recall: write"): nil for
// nil; wrapping ctx's error when ctx is done; ErrTimeout for a statement timeout; ErrReadOnly
// for a read-only server; else err itself.
func Interpret(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	isPg := errors.As(err, &pe)
	switch {
	case ctx.Err() != nil:
		if isPg || errors.Is(err, ctx.Err()) {
			return fmt.Errorf("%s: %w", op, ctx.Err())
		}
		return fmt.Errorf("%s: %w (%v)", op, ctx.Err(), err)
	case isPg && pe.Code == "57014":
		return fmt.Errorf("%s: %w: %s", op, ErrTimeout, pe.Message)
	case isPg && pe.Code == "25006":
		return fmt.Errorf("%s: %w: %s", op, ErrReadOnly, pe.Message)
	}
	return fmt.Errorf("%s: %w", op, err)
}
