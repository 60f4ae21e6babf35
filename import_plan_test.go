package recall_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestLexicalUpkeepReadsByPlace: the lexical upkeep of a batch reads its memories'
// neighbours by their source and place, whatever the statistics say of its scope set. A set
// the statistics have not seen (written after the last ANALYZE: a new tenant's first import)
// is estimated at one row; planned for it, the neighbours' lookup read every row of the set
// for each memory, so an import's batches grew slower one after another. Counted, not timed:
// the rows of recall.memories that rebuilding 50 memories of a 1,200-memory set fetches, in
// one transaction (pg_stat_xact_user_tables): 2,695 as written, where reading the set for
// each memory fetched 122,400. Reading it once a batch is left (bm25_new's outer scan and
// bm25_touched are planned the same way; each costs one pass over the set, not one a memory).
func TestLexicalUpkeepReadsByPlace(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	e, err := recall.New(ctx, recall.Config{Pool: db.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	write := func(set string, sources int) {
		t.Helper()
		u := recall.User{ID: set, Read: []string{set}, Write: []string{set}}
		for s := range sources {
			b := recall.Batch{NoExtract: true, Sources: []recall.Source{{ID: fmt.Sprintf("%s-%d", set, s)}}}
			for p := 1; p <= 60; p++ {
				b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("%s-%d-%d", set, s, p), Source: b.Sources[0].ID,
					Position: p, Text: fmt.Sprintf("turn %d of session %d: the ferry left at %d", p, s, p%7)})
			}
			if _, err := e.Write(ctx, u, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The statistics are the ANALYZE's below and stay so: autovacuum would see the new set
	// whenever it came by.
	if _, err := db.Owner.Exec(ctx, "ALTER TABLE recall.memories SET (autovacuum_enabled = false)"); err != nil {
		t.Fatal(err)
	}
	write("known", 20)
	if _, err := db.Owner.Exec(ctx, "ANALYZE recall.memories"); err != nil {
		t.Fatal(err)
	}
	write("new", 20) // 1,200 memories the statistics do not know
	tx, err := db.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read only in effect: the rebuild writes back what it read
	var fetched, ids int64
	err = tx.QueryRow(ctx, `
		WITH pick AS (SELECT array_agg(id) AS ids FROM (
		  SELECT id FROM recall.memories WHERE scopes = '{new}' ORDER BY id DESC LIMIT 50) x)
		SELECT cardinality(ids), recall.bm25_rebuild('{new}', ids) IS NULL FROM pick`).Scan(&ids, new(bool))
	if err != nil {
		t.Fatal(err)
	}
	err = tx.QueryRow(ctx, `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
		FROM pg_stat_xact_user_tables WHERE schemaname = 'recall' AND relname = 'memories'`).Scan(&fetched)
	if err != nil {
		t.Fatal(err)
	}
	if ids != 50 || fetched > 6000 {
		t.Fatalf("rebuilding %d memories of a 1,200-memory set fetched %d rows of recall.memories: want at most 6,000 (the set a few times, not once a memory)", ids, fetched)
	}
	t.Logf("rebuilding %d memories fetched %d rows of recall.memories", ids, fetched)
}
