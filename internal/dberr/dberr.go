// Package dberr turns the driver's errors into the engine's at one place: an error of a call
// whose context ended wraps the context's error (a statement the cancel request stopped
// answers 57014, which says nothing of why); a statement the server's statement_timeout
// stopped wraps ErrTimeout; a write to a read-only server (a standby, or
// default_transaction_read_only) wraps ErrReadOnly; a connection lost or refused (the server
// restarting or shutting down, a backend terminated, the network) wraps ErrUnavailable. Every path that can be cancelled
// returns through Interpret, so a caller (and the HTTP server) tells a deadline from a
// failure with errors.Is.
package dberr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrTimeout is a statement the server stopped at its statement_timeout.
var ErrTimeout = errors.New("recall: timed out")

// ErrReadOnly is a write refused because the server is read-only.
var ErrReadOnly = errors.New("recall: the database is read-only")

// ErrUnavailable is a call that lost its connection to the database, or could not get one:
// worth retrying in a moment (nothing of a write that failed so was committed).
var ErrUnavailable = errors.New("recall: the database is unavailable")

// Unavailable reports whether err (anywhere in its chain) says the database could not be
// reached or went away: ErrUnavailable; SQLSTATE 57P01 (a backend terminated:
// pg_terminate_backend, a fast shutdown), 57P02 (a crash), 57P03 (not accepting connections
// yet), class 08 (connection exceptions); a failed connect; a connection the driver had
// closed. A statement timeout or a cancelled context is not.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || strings.HasPrefix(pe.Code, "08")
	}
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || errors.Is(err, pgconn.ErrConnClosed)
}

// lostSocket reports whether err, from a database call, is its socket ending or failing
// mid-message (the server gone without an error message): not a timeout.
func lostSocket(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && !ne.Timeout()
}

// Interpret returns err as the engine reports it, prefixed with op ("recall: write"): nil for
// nil; wrapping ctx's error when ctx is done; ErrTimeout for a statement timeout; ErrReadOnly
// for a read-only server; ErrUnavailable (and err) for a connection lost or refused; else err
// itself.
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
	case Unavailable(err) || lostSocket(err):
		return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
