package recall_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/ortrun"
	"github.com/recall-engine/recall/internal/testkit/modeltest"
	"github.com/recall-engine/recall/internal/testkit/synth"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/rerank"
	rerankonnx "github.com/recall-engine/recall/rerank/onnx"
)

// benchEngine returns an engine over the synthetic corpus of RECALL_BENCH_N memories
// (default 100,000) embedded by the built-in hashing embedder, generated once per server
// and kept (testdb.Persistent), with that database.
func benchEngine(b *testing.B, rr rerank.Reranker) (*recall.Engine, *synth.Corpus, *testdb.DB) {
	b.Helper()
	c, db, emb := synth.Persistent(b, synth.BenchN(b, 100000))
	e, err := recall.New(context.Background(), recall.Config{Pool: db.Runtime, Embedder: emb, Reranker: rr, Now: benchNow})
	if err != nil {
		b.Fatal(err)
	}
	return e, c, db
}

func benchNow() time.Time { return synth.Base.Add(2 * 365 * 24 * time.Hour) }

// BenchmarkFirstRecall: the first recall on a new pool connection against the recalls after
// it on the same connection (the statement and the probes are planned once per session).
// Each iteration makes a pool of one connection, then times recall 1 and recalls 2-4, on
// queries not asked before on that connection. "plain" is a pool made by hand (pgvector's
// types registered); "open" is recall.Open's, which warms each connection it makes.
// Reports medians: first_ms, warm_ms, and first_over_warm, their ratio.
func BenchmarkFirstRecall(b *testing.B) {
	_, c, db := benchEngine(b, nil)
	ctx := context.Background()
	user := recall.User{ID: "bench", Read: []string{synth.BigScope}, Write: []string{synth.BigScope}}
	arms := []struct {
		name string
		open func() (*recall.Engine, func(), error)
	}{
		{"plain", func() (*recall.Engine, func(), error) {
			cfg, err := pgxpool.ParseConfig(db.URL("recall_runtime"))
			if err != nil {
				return nil, nil, err
			}
			cfg.MaxConns = 1
			cfg.AfterConnect = pgxvec.RegisterTypes
			pool, err := pgxpool.NewWithConfig(ctx, cfg)
			if err != nil {
				return nil, nil, err
			}
			e, err := recall.New(ctx, recall.Config{Pool: pool, Now: benchNow, NoAccess: true})
			return e, pool.Close, err
		}},
		{"open", func() (*recall.Engine, func(), error) {
			e, err := recall.Open(ctx, db.URL("recall_runtime"), recall.Config{Now: benchNow, NoAccess: true}, recall.PoolOptions{MaxConns: 1})
			if err != nil {
				return nil, nil, err
			}
			return e, e.Close, nil
		}},
	}
	for _, arm := range arms {
		b.Run(arm.name, func(b *testing.B) {
			var first, warm []time.Duration
			i := 0
			for b.Loop() {
				e, closeFn, err := arm.open()
				if err != nil {
					b.Fatal(err)
				}
				for k := range 4 {
					p, err := e.Recall(ctx, user, c.Query(i).Raw, 2000, nil)
					if err != nil {
						b.Fatal(err)
					}
					if k == 0 {
						first = append(first, p.Timings.Total)
					} else {
						warm = append(warm, p.Timings.Total)
					}
					i++
				}
				closeFn()
			}
			f, w := median(first), median(warm)
			b.ReportMetric(ms(f), "first_ms")
			b.ReportMetric(ms(w), "warm_ms")
			b.ReportMetric(float64(f)/float64(w), "first_over_warm")
		})
	}
}

func median(d []time.Duration) time.Duration { return percentile(d, 0.5) }

// percentile is the f-th quantile of d (0 <= f < 1): the value at index f * len(d) in order.
func percentile(d []time.Duration, f float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(f*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// runRecalls runs b.N recalls of the corpus's queries for a user of the big scope and
// reports p50 and p95 of the whole call and the median of each stage.
func runRecalls(b *testing.B, e *recall.Engine, c *synth.Corpus) {
	user := recall.User{ID: "bench", Read: []string{synth.BigScope}, Write: []string{synth.BigScope}}
	var total, st, emb, rr, acc []time.Duration
	i := 0
	for b.Loop() {
		p, err := e.Recall(context.Background(), user, c.Query(i).Raw, 2000, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Items) == 0 || len(p.Warnings) > 0 {
			b.Fatalf("query %d: %d items, warnings %v", i, len(p.Items), p.Warnings)
		}
		total = append(total, p.Timings.Total)
		st = append(st, p.Timings.Statement)
		emb = append(emb, p.Timings.Embed)
		rr = append(rr, p.Timings.Rerank)
		acc = append(acc, p.Timings.Access)
		i++
	}
	b.ReportMetric(ms(percentile(total, 0.5)), "p50_ms")
	b.ReportMetric(ms(percentile(total, 0.95)), "p95_ms")
	b.ReportMetric(ms(percentile(st, 0.5)), "statement_p50_ms")
	b.ReportMetric(ms(percentile(emb, 0.5)), "embed_p50_ms")
	b.ReportMetric(ms(percentile(rr, 0.5)), "rerank_p50_ms")
	b.ReportMetric(ms(percentile(acc, 0.5)), "access_p50_ms")
}

// BenchmarkRecall: Recall end to end (embed, statement, merit order, budget walk, access
// recording) with the built-in embedder and no reranker.
func BenchmarkRecall(b *testing.B) {
	e, c, _ := benchEngine(b, nil)
	runRecalls(b, e, c)
}

// BenchmarkRecallRerank: the same with a MiniLM-L6-shaped random cross-encoder over the
// first 32 candidates (speed only: random weights), on each backend in the binary. Pairs
// are cut to 256 tokens, about what a 100-word memory takes under a real vocabulary (the
// synthetic corpus's made-up words split into many more word pieces).
func BenchmarkRecallRerank(b *testing.B) {
	dir := modeltest.BenchModel(b, "minilm-l6-cross-encoder")
	backends := []rerankonnx.Backend{rerankonnx.BackendGo}
	if ortrun.Built {
		backends = append(backends, rerankonnx.BackendORT)
	}
	for _, backend := range backends {
		ce, err := rerankonnx.New(context.Background(), rerankonnx.Config{Dir: dir, Backend: backend, MaxLen: 256})
		if err != nil {
			b.Fatal(err)
		}
		e, c, _ := benchEngine(b, ce)
		b.Run("backend="+string(backend), func(b *testing.B) { runRecalls(b, e, c) })
		_ = ce.Close()
	}
}

// BenchmarkIngest: Engine.Write throughput, memories per second, into an empty database in
// batches of 500: the built-in embedder, entity extraction and linking, BM25 statistics.
// "bulk" defers the vector index and builds it at the end (what recall ingest does on a
// first load; the build is counted), for RECALL_BENCH_INGEST_N memories (default 100,000);
// "incremental" maintains it row by row, for RECALL_BENCH_INGEST_INCR_N (default 20,000).
func BenchmarkIngest(b *testing.B) {
	for _, arm := range []struct {
		name     string
		n        int
		deferIdx bool
	}{{"bulk", envInt(b, "RECALL_BENCH_INGEST_N", 100000, 500), true}, {"incremental", envInt(b, "RECALL_BENCH_INGEST_INCR_N", 20000, 500), false}} {
		b.Run(fmt.Sprintf("%s/n=%d", arm.name, arm.n), func(b *testing.B) {
			c := synth.New(synth.Config{N: arm.n})
			ctx := context.Background()
			user := recall.User{ID: "bench", Read: []string{synth.BigScope}, Write: []string{synth.BigScope}}
			var total, build time.Duration
			for b.Loop() {
				db := testdb.New(b)
				e, err := recall.New(ctx, recall.Config{Pool: db.Runtime})
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				for lo := 0; lo < arm.n; lo += 500 {
					batch := recall.Batch{DeferVectorIndex: arm.deferIdx}
					srcs := map[int]bool{}
					for i := lo; i < min(arm.n, lo+500); i++ {
						m := c.Memory(i)
						if !srcs[m.Source] {
							srcs[m.Source] = true
							batch.Sources = append(batch.Sources, recall.Source{ID: fmt.Sprintf("s%d", m.Source), Title: c.SourceTitle(m.Source)})
						}
						st := m.Start
						batch.Memories = append(batch.Memories, recall.Memory{ID: m.ExternalID, Source: fmt.Sprintf("s%d", m.Source),
							Kind: m.Kind, Text: m.Text, OccurredStart: &st, OccurredEnd: m.End, Tags: m.Tags})
					}
					if _, err := e.Write(ctx, user, batch); err != nil {
						b.Fatal(err)
					}
					if lo%20000 == 0 && lo > 0 {
						fmt.Fprintf(os.Stderr, "ingest %s: %d/%d in %v\n", arm.name, lo, arm.n, time.Since(start).Round(time.Second))
					}
				}
				t := time.Now()
				if err := e.EnsureVectorIndex(ctx); err != nil {
					b.Fatal(err)
				}
				build += time.Since(t)
				total += time.Since(start)
			}
			b.ReportMetric(float64(arm.n*b.N)/total.Seconds(), "memories/s")
			b.ReportMetric(build.Seconds()/float64(b.N), "index_build_s")
		})
	}
}
