package scope_test

import (
	"context"
	"errors"
	"testing"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestApply: the settings land as the exact arrays the policies read, JIT is off for the
// transaction, a setting for one server is applied on one, and a write scope outside the read
// scopes is refused before touching the server.
func TestApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.Shared(t)
	tx, err := db.Runtime.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(ctx) })

	read, _ := scope.Normalize("read", []string{"ops:eu", "acme", "a@b"})
	write, _ := scope.Normalize("write", []string{"acme"})
	if err := scope.Apply(ctx, tx, read, write, scope.Setting{Name: "enable_seqscan", Value: "off", OneServer: true}); err != nil {
		t.Fatal(err)
	}
	var r, w []string
	var jit, seq string
	if err := tx.QueryRow(ctx, `SELECT recall.read_scopes(), recall.write_scopes(), current_setting('jit'), current_setting('enable_seqscan')`).Scan(&r, &w, &jit, &seq); err != nil {
		t.Fatal(err)
	}
	if len(r) != 3 || r[0] != "a@b" || r[1] != "acme" || r[2] != "ops:eu" || len(w) != 1 || w[0] != "acme" || jit != "off" || seq != "off" {
		t.Fatalf("read %q write %q jit %s enable_seqscan %s (a setting for one server)", r, w, jit, seq)
	}

	var se *scope.Error
	if err := scope.Apply(ctx, tx, []string{"acme"}, []string{"beta"}); !errors.As(err, &se) || se.Field != "write_scopes" {
		t.Fatalf("write scope outside read scopes: %v", err)
	}
}
