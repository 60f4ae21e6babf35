package dberr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestInterpretUnavailable: a connection lost or refused wraps ErrUnavailable (and keeps the
// driver's error); a timeout, a read-only server, a constraint or a cancelled call do not.
func TestInterpretUnavailable(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"terminated backend", context.Background(), &pgconn.PgError{Code: "57P01", Severity: "FATAL"}, true},
		{"crash", context.Background(), &pgconn.PgError{Code: "57P02"}, true},
		{"starting up", context.Background(), &pgconn.PgError{Code: "57P03"}, true},
		{"connection failure", context.Background(), fmt.Errorf("begin: %w", &pgconn.PgError{Code: "08006"}), true},
		{"conn closed", context.Background(), fmt.Errorf("query: %w", pgconn.ErrConnClosed), true},
		{"socket ended", context.Background(), fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), true},
		{"reset", context.Background(), fmt.Errorf("write: %w", syscall.ECONNRESET), true},
		{"statement timeout", context.Background(), &pgconn.PgError{Code: "57014"}, false},
		{"read only", context.Background(), &pgconn.PgError{Code: "25006"}, false},
		{"unique violation", context.Background(), &pgconn.PgError{Code: "23505"}, false},
		{"cancelled call", done, &pgconn.PgError{Code: "57P01"}, false},
		{"other", context.Background(), errors.New("boom"), false},
	} {
		got := Interpret(c.ctx, "op", c.err)
		if errors.Is(got, ErrUnavailable) != c.want {
			t.Errorf("%s: Interpret = %v, ErrUnavailable %v, want %v", c.name, got, errors.Is(got, ErrUnavailable), c.want)
		}
		if c.want && !errors.Is(got, c.err) {
			t.Errorf("%s: Interpret = %v lost the driver's error", c.name, got)
		}
	}
	// Unavailable alone reads the chain of an error that did not pass Interpret, but not a
	// socket's EOF, which a JSON decoder also returns.
	if !Unavailable(fmt.Errorf("x: %w", &pgconn.PgError{Code: "57P01"})) || Unavailable(io.ErrUnexpectedEOF) {
		t.Error("Unavailable: want a terminated backend, not a bare EOF")
	}
}
