package migrations_test

import (
	"context"
	"testing"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/migrations"
)

// TestUpDownUp applies every migration, rolls all of them back, and applies them again on a
// real server, checking the schema at each step.
func TestUpDownUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin, name := testdb.NewEmpty(t)
	db := testdb.OpenSQL(admin, testdb.OwnerRole, name)
	t.Cleanup(func() { db.Close() })

	p, err := migrations.NewProvider(db)
	if err != nil {
		t.Fatal(err)
	}
	sources := p.ListSources()
	if len(sources) < 1 {
		t.Fatalf("found %d migrations, want at least 1", len(sources))
	}
	last := sources[len(sources)-1].Version

	tables := func() int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx,
			`SELECT count(*) FROM pg_tables WHERE schemaname = 'recall'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	policies := func() int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx,
			`SELECT count(*) FROM pg_policies WHERE schemaname = 'recall'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	for round := 1; round <= 2; round++ {
		up, err := migrations.Up(ctx, db)
		if err != nil {
			t.Fatalf("round %d up: %v", round, err)
		}
		if res := up.Migrations; len(res) != len(sources) {
			t.Fatalf("round %d up applied %d migrations, want %d", round, len(res), len(sources))
		}
		v, err := p.GetDBVersion(ctx)
		if err != nil || v != last {
			t.Fatalf("round %d: version %d (%v), want %d", round, v, err, last)
		}
		// 13 of the baseline (function_files included), api_keys, title_trigrams and
		// entity_trigrams.
		if got := tables(); got != 17 {
			t.Fatalf("round %d: %d tables in schema recall, want 17", round, got)
		}
		// 4 policies per data table (memory_access included), 1 read policy on each BM25
		// table; links are foreign keys on (id, scopes), not policies (00006).
		if got := policies(); got != 8*4+3 {
			t.Fatalf("round %d: %d policies, want %d", round, got, 8*4+3)
		}
		// Up again is a no-op.
		if res, err := migrations.Up(ctx, db); err != nil || len(res.Migrations)+len(res.Functions) != 0 {
			t.Fatalf("round %d second up: %+v applied, %v", round, res, err)
		}

		down, err := p.DownTo(ctx, 0)
		if err != nil {
			t.Fatalf("round %d down: %v", round, err)
		}
		if len(down) != len(sources) {
			t.Fatalf("round %d down rolled back %d, want %d", round, len(down), len(sources))
		}
		var schemas int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = 'recall'`).Scan(&schemas); err != nil {
			t.Fatal(err)
		}
		if schemas != 0 {
			t.Fatalf("round %d: schema recall still exists after down to 0", round)
		}
		if v, err := p.GetDBVersion(ctx); err != nil || v != 0 {
			t.Fatalf("round %d: version after down %d (%v), want 0", round, v, err)
		}
	}
}

func TestHashStable(t *testing.T) {
	t.Parallel()
	a, b := migrations.Hash(), migrations.Hash()
	if a != b || len(a) != 64 {
		t.Fatalf("Hash() = %q then %q; want the same 64 hex digits", a, b)
	}
}
