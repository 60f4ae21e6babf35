package statement_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/statement"
)

// TestExplain prints EXPLAIN ANALYZE of the plan named by RECALL_EXPLAIN on the benchmark
// corpus (RECALL_BENCH_N) as a reader of scope RECALL_EXPLAIN_SCOPE (default "big"), for
// finding where a statement spends its time. Skipped otherwise.
//
//	RECALL_EXPLAIN=maximal go test ./statement -run Explain -v
func TestExplain(t *testing.T) {
	name := os.Getenv("RECALL_EXPLAIN")
	if name == "" {
		t.Skip("set RECALL_EXPLAIN to a plan name")
	}
	plan, err := statement.ParsePlan(name)
	if err != nil {
		t.Fatal(err)
	}
	c, db := benchCorpus(t)
	st, err := statement.Build(statement.Shape{Dim: c.Cfg.Dim, Fuzzy: true, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	i, _ := strconv.Atoi(os.Getenv("RECALL_EXPLAIN_QUERY"))
	sc := "big"
	if v := os.Getenv("RECALL_EXPLAIN_SCOPE"); v != "" {
		sc = v
	}
	// The first run on a connection also fills its catalog caches and plans the probe
	// functions' queries: print the second.
	var lines []string
	for range 2 {
		lines = explain(t, db.Runtime, []string{sc}, st, benchQuery(c, sc, i), statement.DefaultSettings(), "ANALYZE, BUFFERS")
	}
	for _, l := range lines {
		fmt.Println(l)
	}
}

// explain returns the lines of EXPLAIN (options) of st run as a reader of read, in the
// transaction Run would open.
func explain(t testing.TB, pool *pgxpool.Pool, read []string, st *statement.Statement, q statement.Query, s statement.Settings, options string) []string {
	t.Helper()
	args, err := st.Args(q, s)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	asReader(t, pool, read, s, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "EXPLAIN ("+options+") "+st.SQL, args)
		if err != nil {
			return err
		}
		lines, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return lines
}

// asReader runs fn in the transaction Run would open for a reader of read (scopes and
// session settings set), then rolls it back.
func asReader(t testing.TB, pool *pgxpool.Pool, read []string, s statement.Settings, fn func(context.Context, pgx.Tx) error) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if err := scope.Apply(ctx, tx, read, nil, s.Session()...); err != nil {
		t.Fatal(err)
	}
	if err := fn(ctx, tx); err != nil {
		t.Fatal(err)
	}
}
