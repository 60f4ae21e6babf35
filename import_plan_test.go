package recall_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestLexicalUpkeepReadsByPlace: the lexical upkeep of a batch reads its memories by id and
// their neighbours by source and place, whatever the statistics say of its scope set. A set
// the statistics have not seen (written after the last ANALYZE, or into tables never
// analyzed: a new tenant's first import) is estimated at a handful of rows; planned for it,
// the upkeep read the set by its index once for the batch and once a memory for the
// neighbours, so an import's batches grew slower one after another. Counted, not timed: the
// rows of recall.memories that rebuilding 50 memories of a 1,200-memory set of 60 sources
// fetches (pg_stat_xact_user_tables). By id and place it is a few rows a memory (the memory,
// up to four neighbours, the places between): 524 as written, at most 1,000 however large
// the set; reading by the set fetched 3,332 (analyzed) and 3,633 (never analyzed).
func TestLexicalUpkeepReadsByPlace(t *testing.T) {
	t.Parallel()
	for _, analyzed := range []bool{true, false} {
		t.Run(fmt.Sprintf("analyzed=%v", analyzed), func(t *testing.T) {
			t.Parallel()
			fetched := upkeepFetches(t, analyzed)
			if fetched > 1000 {
				t.Fatalf("rebuilding 50 memories of a 1,200-memory set fetched %d rows of recall.memories: want at most 1,000 (by id and place, not by the set)", fetched)
			}
			t.Logf("rebuilding 50 memories fetched %d rows of recall.memories", fetched)
		})
	}
}

// upkeepFetches writes 1,200 memories in 60 sources of a new scope set (after such a set the
// statistics know when analyzed, else into tables never analyzed) and counts the rows of
// recall.memories that rebuilding the lexical data of the last 50 fetches.
func upkeepFetches(t *testing.T, analyzed bool) int64 {
	t.Helper()
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
			for p := 1; p <= 20; p++ {
				b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("%s-%d-%d", set, s, p), Source: b.Sources[0].ID,
					Position: p, Text: fmt.Sprintf("turn %d of session %d: the ferry left at %d", p, s, p%7)})
			}
			if _, err := e.Write(ctx, u, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The statistics are the ANALYZE's below (or none) and stay so: autovacuum would see the
	// new set whenever it came by.
	if _, err := db.Owner.Exec(ctx, `ALTER TABLE recall.memories SET (autovacuum_enabled = false);
		ALTER TABLE recall.sources SET (autovacuum_enabled = false)`); err != nil {
		t.Fatal(err)
	}
	if analyzed {
		write("known", 60)
		if _, err := db.Owner.Exec(ctx, "ANALYZE recall.memories, recall.sources"); err != nil {
			t.Fatal(err)
		}
	}
	write("new", 60) // 1,200 memories in 60 sources the statistics do not know
	// The last 50 memories, their sources and places, read before the counted transaction.
	var ids, sources []int64
	var places []int32
	err = db.Owner.QueryRow(ctx, `
		SELECT array_agg(id), array_agg(source_id), array_agg(position) FROM (
		  SELECT id, source_id, position FROM recall.memories WHERE scopes = '{new}' ORDER BY id DESC LIMIT 50) x`).Scan(&ids, &sources, &places)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read only in effect: the rebuild writes back what it read
	// The counters of the backend's transactions not yet reported (PostgreSQL 15 reports
	// them at most once a second) count in pg_stat_xact_user_tables as well: the rebuild's
	// are the difference.
	count := func() (n int64) {
		t.Helper()
		err := tx.QueryRow(ctx, `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
			FROM pg_stat_xact_user_tables WHERE schemaname = 'recall' AND relname = 'memories'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	if _, err := tx.Exec(ctx, `SELECT recall.bm25_rebuild('{new}', recall.bm25_touched('{new}', $1, $2, $3))`, ids, sources, places); err != nil {
		t.Fatal(err)
	}
	fetched := count() - before
	if len(ids) != 50 {
		t.Fatalf("picked %d memories to rebuild, want 50", len(ids))
	}
	return fetched
}
