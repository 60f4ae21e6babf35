package statement_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// TestWarm runs the warm-up on a fresh connection of a loaded database: the probes' and the
// HNSW scan's SQL (sql/lanes/warm_*.sql) binds what the probes' signatures take, so a
// changed signature fails here instead of silently stopping the warm-up; afterwards the
// connection holds the recall statement prepared, and nothing was read as anyone.
func TestWarm(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 40, seed: 5, dim: dim, base: base}.load(t, db.Owner)
	ctx := context.Background()
	c, err := db.Runtime.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	st, err := statement.Build(statement.Shape{Dim: dim, Fuzzy: true, Plan: statement.Maximal})
	if err != nil {
		t.Fatal(err)
	}
	raw := "What did Alice Martin say about the Notes on apple river in May 2026?"
	q := statement.Query{Text: raw, Raw: raw, Vector: unitVector(3, dim), Now: base}
	if err := statement.Warm(ctx, c.Conn(), st, q, statement.DefaultSettings(), []int{dim}); err != nil {
		t.Fatal(err)
	}
	var prepared int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'WITH RECURSIVE%'`).Scan(&prepared); err != nil {
		t.Fatal(err)
	}
	if prepared != 1 {
		t.Fatalf("%d recall statements prepared on the warmed connection, want 1", prepared)
	}
	// A dimension without an index is not scanned, and is no failure.
	if err := statement.Warm(ctx, c.Conn(), st, q, statement.DefaultSettings(), nil); err != nil {
		t.Fatal(err)
	}
	// A failure is reported, not swallowed.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := statement.Warm(cancelled, c.Conn(), st, q, statement.DefaultSettings(), []int{dim}); err == nil || !strings.Contains(err.Error(), "warm") {
		t.Fatalf("warm with a cancelled context: %v, want an error", err)
	}
}
