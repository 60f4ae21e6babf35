package recall_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestCitusTriggerPlans: on the distributed schema, after the function files are applied
// again (which drops a function's settings), a worker backend that inserts 1,000 memories into
// a shard, firing the write triggers once per row, holds less than 4 MB of cached plans. With
// the triggers' plans cached (before sql/citus/trigger_plans.sql) the title lookup's plan grew
// by 64 kB a row and the BM25 note's by 32 kB: 82 MB here.
func TestCitusTriggerPlans(t *testing.T) {
	t.Parallel()
	cdb, _ := distributedPair(t)
	ctx := context.Background()
	applyFunctionsAgain(t, cdb)
	engines, _ := enginePair(t, recall.Config{}, cdb)
	user := recall.User{ID: "w", Read: []string{"t"}, Write: []string{"t"}}
	b := recall.Batch{Scopes: []string{"t"}, Sources: []recall.Source{{ID: "log", Title: "Harbor log"}}}
	for i := range 20 {
		b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("m%d", i), Source: "log", Position: i + 1,
			Text: fmt.Sprintf("The harbor crane was fixed on day %d.", i)})
	}
	if _, err := engines[0].Write(ctx, user, b); err != nil {
		t.Fatal(err)
	}
	var db string
	if err := cdb.Owner.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, u := range strings.Fields(os.Getenv(testdb.EnvCitusWorkers)) {
		cfg, err := pgx.ParseConfig(u)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Database = db
		w, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close(ctx) //nolint:errcheck // closing a connection
		// Citus hides the shards from a session's catalog reads unless asked.
		if _, err := w.Exec(ctx, "SET citus.show_shards_for_app_name_prefixes = '*'"); err != nil {
			t.Fatal(err)
		}
		rows, err := w.Query(ctx, `SELECT relname FROM pg_class WHERE relnamespace = 'recall'::regnamespace AND relname ~ '^memories_[0-9]+$'`)
		if err != nil {
			t.Fatal(err)
		}
		shards, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		shard := ""
		for _, s := range shards {
			var n int
			if err := w.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM recall.%s", s)).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				shard = s
			}
		}
		if shard == "" {
			continue // the worker without the set's shard
		}
		found = true
		// 50 rounds of the 20 memories, as new rows of the shard (the superuser: no policy).
		for r := 1; r <= 50; r++ {
			if _, err := w.Exec(ctx, fmt.Sprintf(`INSERT INTO recall.%[1]s (id, external_id, scopes, source_id, kind, text)
				SELECT id + %[2]d * 1000000, external_id || '-' || %[2]d, scopes, source_id, kind, text
				FROM recall.%[1]s WHERE external_id !~ '-'`, shard, r)); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		var plans int64
		if err := w.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM recall.%s", shard)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := w.QueryRow(ctx, `SELECT coalesce(sum(total_bytes), 0) FROM pg_backend_memory_contexts WHERE name = 'CachedPlan'`).Scan(&plans); err != nil {
			t.Fatal(err)
		}
		t.Logf("shard %s: %d rows; the inserting backend's cached plans: %d kB", shard, n, plans/1024)
		if n != 1020 {
			t.Fatalf("shard %s holds %d memories, want 1,020", shard, n)
		}
		if plans >= 4<<20 {
			t.Fatalf("after 1,000 rows through the write triggers the worker backend holds %d kB of cached plans, want < 4,096", plans/1024)
		}
	}
	if !found {
		t.Fatal("no worker holds the scope set's memories shard")
	}
}
