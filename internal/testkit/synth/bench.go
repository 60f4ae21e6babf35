package synth

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// BenchN is the corpus size of the benchmarks: RECALL_BENCH_N, else def.
func BenchN(tb testing.TB, def int) int {
	tb.Helper()
	v := os.Getenv("RECALL_BENCH_N")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1000 {
		tb.Fatalf("RECALL_BENCH_N=%q: want an integer >= 1000", v)
	}
	return n
}

// Persistent is the corpus of n memories embedded by the built-in hashing embedder (which it
// returns), in a database kept across runs (testdb.Persistent): generated and loaded once
// per server, with progress on stderr.
func Persistent(tb testing.TB, n int) (*Corpus, *testdb.DB, embed.Embedder) {
	tb.Helper()
	emb, err := embed.NewHashing(0)
	if err != nil {
		tb.Fatal(err)
	}
	c := New(Config{N: n, Dim: emb.Dim(), Embed: func(texts []string) ([][]float32, error) {
		return emb.Embed(context.Background(), texts, embed.Document)
	}})
	db := testdb.Persistent(tb, fmt.Sprintf("hashing%d_%d_%d", Version, n, c.Cfg.Seed), func(db *testdb.DB) error {
		start, last := time.Now(), time.Now()
		return c.Load(context.Background(), db.Owner, func(stage string, done, total int) {
			if time.Since(last) > 10*time.Second || done == total {
				last = time.Now()
				fmt.Fprintf(os.Stderr, "synth: %s %d/%d (%v)\n", stage, done, total, time.Since(start).Round(time.Second))
			}
		})
	})
	return c, db, emb
}
