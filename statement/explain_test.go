package statement_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

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
	s := statement.DefaultSettings()
	args, err := st.Args(benchQuery(c, i), s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tx, err := db.Runtime.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	sc := "big"
	if v := os.Getenv("RECALL_EXPLAIN_SCOPE"); v != "" {
		sc = v
	}
	if err := scope.Apply(ctx, tx, []string{sc}, nil, s.Session()...); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+st.SQL, args)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		fmt.Println(l)
	}
}
