package scope_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/sql"
)

// TestApplyReachesCitusWorkers: on a Citus cluster, the scopes Apply sets reach the workers,
// whose policies decide what a distributed table shows: a caller sees exactly the rows whose
// scope set meets its read scopes (the rule, in Go), on the connection's first transaction
// (where Apply learns it is on Citus) and on later ones. The same scopes set by set_config
// alone (the single server's statement) reach no worker, and the caller sees nothing, which
// is what Apply's Citus path is for.
func TestApplyReachesCitusWorkers(t *testing.T) {
	t.Parallel()
	db := testdb.Citus(t)
	ctx := context.Background()
	rows := []struct {
		scopes []string
		v      int
	}{{[]string{"a"}, 1}, {[]string{"b"}, 2}, {[]string{"a", "b"}, 3}, {[]string{"c"}, 4}, {[]string{"b", "c"}, 5}, {[]string{"d"}, 6}}
	if _, err := db.Owner.Exec(ctx, `CREATE TABLE recall.apply_probe (scopes text[] NOT NULL, v int NOT NULL);
		ALTER TABLE recall.apply_probe ENABLE ROW LEVEL SECURITY;
		CREATE POLICY apply_probe_read ON recall.apply_probe FOR SELECT TO recall_runtime USING (scopes && recall.read_scopes());
		GRANT SELECT ON recall.apply_probe TO recall_runtime;
		SELECT create_distributed_table('recall.apply_probe', 'scopes')`); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if _, err := db.Owner.Exec(ctx, `INSERT INTO recall.apply_probe (scopes, v) VALUES ($1, $2)`, r.scopes, r.v); err != nil {
			t.Fatal(err)
		}
	}
	var shards int
	if err := db.Owner.QueryRow(ctx, `SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name = 'recall.apply_probe'::regclass`).Scan(&shards); err != nil {
		t.Fatal(err)
	}
	if shards < 2 {
		t.Fatalf("the table's shards are on %d nodes: the test needs the workers", shards)
	}
	conn, err := db.Runtime.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	see := func(read []string, apply func(pgx.Tx) error) []int {
		t.Helper()
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if err := apply(tx); err != nil {
			t.Fatal(err)
		}
		var got []int
		if err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(v ORDER BY v), '{}') FROM recall.apply_probe`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for i, read := range [][]string{{"a"}, {"b", "c"}, {"a", "d"}, {}, {"e"}, {"c"}} {
		var want []int
		for _, r := range rows {
			if slices.ContainsFunc(r.scopes, func(s string) bool { return slices.Contains(read, s) }) {
				want = append(want, r.v)
			}
		}
		got := see(read, func(tx pgx.Tx) error {
			if err := scope.Apply(ctx, tx, read, nil, scope.Setting{Name: "enable_seqscan", Value: "off", OneServer: true}); err != nil {
				return err
			}
			// A setting for one server is not applied on Citus.
			var seq string
			if err := tx.QueryRow(ctx, `SELECT current_setting('enable_seqscan')`).Scan(&seq); err != nil || seq != "on" {
				return fmt.Errorf("enable_seqscan %q on Citus (%v), want on", seq, err)
			}
			return nil
		})
		if !slices.Equal(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Errorf("transaction %d, read %v: sees %v, want %v", i, read, got, want)
		}
	}
	got := see([]string{"a"}, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, sqltext.ScopeApply, []string{"a"}, []string{}, []string{}, []string{})
		return err
	})
	if len(got) != 0 {
		t.Errorf("set_config alone: the caller sees %v; Citus was expected to keep it from the workers", got)
	}
}
